import DepotCore
import Foundation
import GRDB
import Testing

@testable import DepotLedger

/// Conformance: a transaction keeps the product type it was first recorded under (the type it is judged by
/// for good), whatever type later presentations bring; the finished consumables the grant check refuses follow
/// it, and a transaction recorded without one is judged by the catalog's.
@Suite struct LedgerTransactionTypeTests {
    @Test(arguments: Engine.tested)
    func theTypeIsRecordedAtFirstSightAndKept(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, ledger in
            let t = Sample.transaction("7001")
            #expect(try await ledger.recordTransaction(t, productType: .nonConsumable, now: 10).productType == .nonConsumable)
            // Presented again while the catalog says another type: the recorded one stays.
            #expect(try await ledger.recordTransaction(t, productType: .consumable, now: 20).productType == .nonConsumable)
            #expect(try await ledger.recordTransaction(t, productType: nil, now: 30).productType == .nonConsumable)
            // Neither a revocation nor a finish touches it; another instance reads it too.
            _ = try await ledger.setRevocation(transactionId: "7001", revokedAt: 5, reason: "REFUND", signedAt: nil, now: 40)
            try await ledger.recordGrants(transactionId: "7001", deliveries: [Sample.level1], now: 50)
            _ = try await ledger.finish(
                transactionId: "7001", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: false, now: 60)
            #expect(try await fixture.open().transaction(id: "7001")?.productType == .nonConsumable)

            // Recorded without a type (its product was not in the catalog): it stays without one, judged by the
            // catalog's type of the moment.
            let unknown = Sample.transaction("7002")
            #expect(try await ledger.recordTransaction(unknown, productType: nil, now: 10).productType == nil)
            #expect(try await ledger.recordTransaction(unknown, productType: .autoRenewable, now: 20).productType == nil)
        }
    }

    @Test(arguments: Engine.tested)
    func finishedConsumablesFollowTheRecordedType(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            // "coins" is a consumable in today's catalog, "level" is not.
            let recorded: [(String, String, ProductType?)] = [
                ("8001", "level", .consumable), ("8002", "coins", .nonConsumable), ("8003", "coins", nil),
                ("8004", "level", nil),
            ]
            for (id, product, type) in recorded {
                _ = try await ledger.recordTransaction(Sample.transaction(id, product: product), productType: type, now: 10)
                try await ledger.recordGrants(transactionId: id, deliveries: [Sample.level1], now: 20)
                _ = try await ledger.finish(
                    transactionId: id, claims: [Sample.confirmed(Sample.level1)], requiresDelivery: false, now: 100)
            }
            #expect(try await ledger.finishedConsumableIds(catalogConsumables: ["coins"], finishedSince: 0) == ["8001", "8003"])
            #expect(try await ledger.finishedConsumableIds(catalogConsumables: [], finishedSince: 0) == ["8001"])
            #expect(try await ledger.finishedConsumableIds(catalogConsumables: ["coins"], finishedSince: 101).isEmpty)
        }
    }

    /// A ledger written before types were kept: its transactions stay without one after the migration.
    @Test func rowsFromBeforeTheMigrationHaveNoType() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("DepotLedgerTests-rowsFromBeforeTheMigrationHaveNoType-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/ledger.sqlite"
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteLedger.migrator.migrate(queue, upTo: "v6-apple-outbox")
            try await queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO transactions (id, original_id, product_id, purchase_date_ms, quantity, environment,
                            first_seen_at, last_seen_at)
                        VALUES ('9001', '9001', 'com.example.level1', 1, 1, 'Production', 1, 1)
                        """)
            }
            try queue.close()
        }
        let ledger = try await SQLiteLedger.open(path: path)
        defer { try? ledger.close() }
        let applied = try await ledger.appliedMigrations()
        #expect(applied.contains("v7-transaction-type"))
        #expect(applied == SQLiteLedger.migrator.migrations, "every later migration applied too")
        let old = try #require(try await ledger.transaction(id: "9001"))
        #expect(old.productType == nil)
        // Presented again, it stays without one: judged by the catalog's type, which the operator controls.
        #expect(try await ledger.recordTransaction(Sample.transaction("9001"), productType: .nonConsumable, now: 2).productType == nil)
        #expect(
            old.judgedType(in: Catalog(products: [Product(id: "com.example.level1", type: .consumable, title: "L")], versions: []))
                == .consumable)
    }
}
