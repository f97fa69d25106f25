import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: every bundle a redeem offered is kept, which finishes are judged against; and finished
/// consumables are listed for the grant check.
@Suite struct LedgerOfferTests {
    @Test(arguments: Engine.tested)
    func everyOfferedBundleIsKept(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Sample.transaction("4000"), now: 10)
            #expect(try await ledger.offers(transactionId: "4000").isEmpty)
            let full = PlannedDelivery(contentId: "level1", version: "1.1", digest: Sample.digest("f"))
            let delta = PlannedDelivery(contentId: "level1", version: "1.1", digest: Sample.digest("d"))
            let older = PlannedDelivery(contentId: "level1", version: "1.0", digest: Sample.digest("e"))
            try await ledger.recordGrants(transactionId: "4000", deliveries: [older], now: 20)
            try await ledger.recordGrants(transactionId: "4000", deliveries: [full], now: 30)
            try await ledger.recordGrants(transactionId: "4000", deliveries: [delta], now: 40)
            try await ledger.recordGrants(transactionId: "4000", deliveries: [full], now: 50)
            #expect(try await ledger.offers(transactionId: "4000") == [older, delta, full])
            #expect(try await ledger.offers(transactionId: "other").isEmpty)
        }
    }

    @Test(arguments: Engine.tested)
    func finishedTransactionsOfProductsAreListedSinceATime(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let coins = PlannedDelivery(contentId: "coins", version: "1.0", digest: Sample.digest("c"))
            for (id, product, finishAt) in [("5001", "coins", Int64(100)), ("5002", "coins", 200), ("5003", "level", 200)] {
                _ = try await ledger.recordTransaction(Sample.transaction(id, product: product), now: 10)
                try await ledger.recordGrants(transactionId: id, deliveries: [coins], now: 20)
                _ = try await ledger.finish(
                    transactionId: id, claims: [Sample.confirmed(coins)], requiresDelivery: false, now: finishAt)
            }
            _ = try await ledger.recordTransaction(Sample.transaction("5004", product: "coins"), now: 10)
            // Recorded without a type: judged by the catalog's consumables.
            #expect(try await ledger.finishedConsumableIds(catalogConsumables: ["coins"], finishedSince: 150) == ["5002"])
            #expect(try await ledger.finishedConsumableIds(catalogConsumables: ["coins"], finishedSince: 0) == ["5001", "5002"])
            #expect(
                try await ledger.finishedConsumableIds(catalogConsumables: ["coins", "level"], finishedSince: 0) == [
                    "5001", "5002", "5003",
                ])
            #expect(try await ledger.finishedConsumableIds(catalogConsumables: [], finishedSince: 0).isEmpty)
        }
    }
}
