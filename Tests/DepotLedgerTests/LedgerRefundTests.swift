import DepotCore
import Foundation
import GRDB
import Testing

@testable import DepotLedger

/// What a refund took back, in both engines: ownership and the refund's type, percentage and units are recorded
/// with a transaction, a refund of some units leaves it unrevoked, a reversal clears it, a void of units only ever
/// grows, and rows written before the migration read as purchased and unrefunded.
@Suite struct LedgerRefundTests {
    static func coins(_ id: String, quantity: Int = 3) -> PurchaseTransaction {
        var transaction = Sample.transaction(id, product: "com.example.coins")
        transaction.quantity = quantity
        return transaction
    }

    @Test(arguments: Engine.allCases)
    func aRefundOfSomeUnitsIsRecordedAndItsReversalClearsIt(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            var shared = Self.coins("9300")
            shared.ownership = .familyShared
            let first = try await ledger.recordTransaction(shared, productType: .consumable, now: 1)
            #expect(first.transaction.ownership == .familyShared)
            #expect(first.transaction.revokedQuantity == 0)

            let partial = PurchaseRevocation(kind: .refundProrated, percentage: 33_333, at: Sample.purchaseMs + 5, revokedQuantity: 1)
            #expect(
                try await ledger.setRevocation(
                    transactionId: "9300", revokedAt: nil, revocation: partial, reason: "REFUND", signedAt: Sample.purchaseMs + 10,
                    now: 2))
            let refunded = try #require(try await ledger.transaction(id: "9300"))
            #expect(refunded.transaction.revocation == partial)
            #expect(refunded.transaction.revokedQuantity == 1)
            #expect(!refunded.transaction.isRevoked)
            #expect(try await ledger.revokedTransactionIds().isEmpty)
            let audit = try await ledger.auditTrail(transactionId: "9300", afterSequence: 0, limit: 10)
            #expect(
                audit.contains { $0.event == "refunded" && $0.detail.contains("refundProrated 33333 milliunits, 1 of 3 units revoked") })

            // Presented again without the refund (an older JWS), nothing is undone; with the same refund, nothing new.
            _ = try await ledger.recordTransaction(shared, productType: .consumable, now: 3)
            var again = shared
            again.revocation = partial
            again.signedDate = Sample.purchaseMs + 20
            #expect(try await ledger.recordTransaction(again, productType: .consumable, now: 4).transaction.revocation == partial)
            let refundedEvents = try await ledger.auditTrail(transactionId: "9300", afterSequence: 0, limit: 20).filter {
                $0.event == "refunded"
            }
            #expect(refundedEvents.count == 1)

            #expect(
                try await ledger.setRevocation(
                    transactionId: "9300", revokedAt: nil, revocation: nil, reason: "REFUND_REVERSED",
                    signedAt: Sample.purchaseMs + 30, now: 5))
            let reversed = try #require(try await ledger.transaction(id: "9300"))
            #expect(reversed.transaction.revocation == nil)
            #expect(reversed.transaction.revokedQuantity == 0)
            #expect(reversed.transaction.ownership == .familyShared)
        }
    }

    @Test(arguments: Engine.allCases)
    func aVoidOfUnitsOnlyGrowsAndAWholeOneRevokes(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Self.coins("9400"), productType: .consumable, now: 1)
            func void(_ units: Int) -> PurchaseRevocation {
                PurchaseRevocation(kind: .voided, at: Sample.purchaseMs + 100, revokedQuantity: units)
            }
            #expect(try await ledger.revokeIfNotRevoked(transactionId: "9400", revokedAt: 1, revocation: void(1), reason: "void", now: 2))
            #expect(
                !(try await ledger.revokeIfNotRevoked(transactionId: "9400", revokedAt: 1, revocation: void(1), reason: "void", now: 3)))
            #expect(try await ledger.transaction(id: "9400")?.transaction.revokedQuantity == 1)
            #expect(try await ledger.revokeIfNotRevoked(transactionId: "9400", revokedAt: 1, revocation: void(2), reason: "void", now: 4))
            #expect(
                !(try await ledger.revokeIfNotRevoked(transactionId: "9400", revokedAt: 1, revocation: void(1), reason: "void", now: 5)))
            #expect(try await ledger.transaction(id: "9400")?.transaction.revokedQuantity == 2)
            #expect(try await ledger.revokedTransactionIds().isEmpty)
            #expect(
                try await ledger.revokeIfNotRevoked(
                    transactionId: "9400", revokedAt: Sample.purchaseMs + 200, revocation: void(3), reason: "void", now: 6))
            let revoked = try #require(try await ledger.transaction(id: "9400"))
            #expect(revoked.transaction.isRevoked)
            #expect(revoked.transaction.revokedQuantity == 3)
            #expect(revoked.transaction.revocation?.kind == .voided)
            #expect(try await ledger.revokedTransactionIds() == ["9400"])
            #expect(
                !(try await ledger.revokeIfNotRevoked(transactionId: "9400", revokedAt: 1, revocation: void(3), reason: "void", now: 7)))
        }
    }

    /// A ledger written before refunds were told apart: its rows read as purchased, with nothing refunded, and a
    /// revocation recorded then still revokes every unit.
    @Test func rowsFromBeforeTheMigrationArePurchasedAndUnrefunded() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("DepotLedgerTests-rowsFromBeforeTheRefundMigration-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/ledger.sqlite"
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteLedger.migrator.migrate(queue, upTo: "v13-served-intervals")
            try await queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO transactions (id, original_id, product_id, purchase_date_ms, quantity, environment,
                            first_seen_at, last_seen_at, revocation_date_ms)
                        VALUES ('9501', '9501', 'com.example.coins', 1, 3, 'Production', 1, 1, NULL),
                            ('9502', '9502', 'com.example.coins', 1, 2, 'Production', 1, 1, 500)
                        """)
            }
            try queue.close()
        }
        let ledger = try await SQLiteLedger.open(path: path)
        defer { try? ledger.close() }
        #expect(try await ledger.appliedMigrations() == SQLiteLedger.migrator.migrations)
        let plain = try #require(try await ledger.transaction(id: "9501")).transaction
        #expect(plain.ownership == .purchased && plain.quantity == 3 && plain.revokedQuantity == 0 && plain.revocation == nil)
        let revoked = try #require(try await ledger.transaction(id: "9502")).transaction
        #expect(revoked.isRevoked && revoked.revokedQuantity == 2 && revoked.revocation == nil)
    }
}
