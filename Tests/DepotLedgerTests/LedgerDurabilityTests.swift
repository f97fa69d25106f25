import DepotTestSupport
import DepotCore
import GRDB
import Testing

@testable import DepotLedger

/// Conformance: migrations that run once, and data that outlives the ledger instance that wrote it.
@Suite struct LedgerDurabilityTests {
    /// How many migrations this build registers for an engine: every one of them is applied on opening.
    static func registeredMigrations(_ engine: Engine) -> Int {
        switch engine {
        case .sqlite: SQLiteLedger.migrator.migrations.count
        case .postgres: PostgresLedger.migrations.count
        }
    }

    @Test(arguments: Engine.tested)
    func migrationsAreIdempotent(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, ledger in
            let applied = try await fixture.appliedMigrations(ledger)
            #expect(applied.count == Self.registeredMigrations(engine))
            _ = try await ledger.recordTransaction(Sample.transaction("1000"), now: 1)

            // Opening again (twice) migrates nothing and keeps the data.
            let second = try await fixture.open()
            let third = try await fixture.open()
            #expect(try await fixture.appliedMigrations(second) == applied)
            #expect(try await fixture.appliedMigrations(third) == applied)
            #expect(try await third.transaction(id: "1000")?.firstSeenAt == 1)
        }
    }

    /// Instances starting together on an empty database: one migrates, the others wait and find it done.
    @Test(arguments: Engine.tested)
    func instancesStartingTogetherMigrateOnce(engine: Engine) async throws {
        try await LedgerFixture.withFixture(engine) { fixture in
            let ledgers = try await withThrowingTaskGroup(of: (any Ledger).self) { group in
                for _ in 0..<4 {
                    group.addTask { try await fixture.open() }
                }
                var ledgers: [any Ledger] = []
                for try await ledger in group { ledgers.append(ledger) }
                return ledgers
            }
            for ledger in ledgers {
                #expect(try await fixture.appliedMigrations(ledger).count == Self.registeredMigrations(engine))
            }
            _ = try await ledgers[0].recordTransaction(Sample.transaction("2000"), now: 1)
            #expect(try await ledgers[3].transaction(id: "2000") != nil)
        }
    }

    @Test(arguments: Engine.tested)
    func aFinishSurvivesClosingAndReopening(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, ledger in
            let expected = [Sample.level1, Sample.level2]
            _ = try await ledger.recordTransaction(Sample.transaction("3000", token: "A"), now: 10)
            try await ledger.recordGrants(transactionId: "3000", deliveries: expected, now: 20)
            try await ledger.recordServed(
                transactionId: "3000", digest: Sample.level1.digest, range: 0..<4_096, client: "192.0.2.1", now: 30)
            #expect(
                try await ledger.finish(
                    transactionId: "3000", claims: expected.map { Sample.confirmed($0) }, requiresDelivery: false, now: 40
                )
                    == .finished(firstTime: true))
            #expect(
                try await ledger.setRevocation(
                    transactionId: "3000", revokedAt: Sample.purchaseMs + 1, reason: "REFUND", signedAt: nil, now: 50))
            let notification = NotificationRecord(uuid: "n-1", type: "REFUND", subtype: nil, transactionId: "3000")
            #expect(try await ledger.recordNotification(notification, now: 50))
            let transaction = try await ledger.transaction(id: "3000")
            let deliveries = try await ledger.deliveries(transactionId: "3000")
            let trail = try await ledger.auditTrail(transactionId: "3000")
            try await fixture.close(ledger)

            let reopened = try await fixture.open()
            #expect(try await reopened.transaction(id: "3000") == transaction)
            #expect(transaction?.state == .finished)
            #expect(try await reopened.deliveries(transactionId: "3000") == deliveries)
            #expect(deliveries.first?.bytesCovered == 4_096)
            #expect(try await reopened.auditTrail(transactionId: "3000") == trail)
            #expect(try await reopened.revokedTransactionIds() == ["3000"])
            #expect(try await reopened.recordNotification(notification, now: 60) == false)
            #expect(
                try await reopened.finish(
                    transactionId: "3000", claims: expected.map { Sample.confirmed($0) }, requiresDelivery: false, now: 70
                )
                    == .finished(firstTime: false))
        }
    }

    @Test func sqliteRunsInWALWithFullSync() async throws {
        try await LedgerFixture.with(.sqlite) { _, ledger in
            let sqlite = try #require(ledger as? SQLiteLedger)
            #expect(try await sqlite.pragma("journal_mode") == "wal")
            #expect(try await sqlite.pragma("synchronous") == "2")  // FULL
            #expect(try await sqlite.pragma("busy_timeout") == "10000")
        }
    }

    @Test func sqliteCreatesItsDirectory() async throws {
        try await LedgerFixture.with(.sqlite) { _, ledger in
            let sqlite = try #require(ledger as? SQLiteLedger)
            let directory = sqlite.path.dropLast("ledger.sqlite".count)
            let nested = String(directory) + "a/b/c/ledger.sqlite"
            let other = try await SQLiteLedger.open(path: nested)
            _ = try await other.recordTransaction(Sample.transaction("4000"), now: 1)
            try other.close()
            #expect(try await SQLiteLedger.open(path: nested).transaction(id: "4000") != nil)
        }
    }

    @Test func anUnreachableServerIsUnavailable() async throws {
        // Port 1 on loopback: nothing listens there; the connect fails fast.
        await #expect {
            _ = try await PostgresLedger.connect(url: "postgres://depot@127.0.0.1:1/depot?sslmode=disable")
        } throws: { error in
            (error as? LedgerError)?.code == .unavailable
        }
    }
}
