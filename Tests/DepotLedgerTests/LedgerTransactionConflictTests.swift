import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: a transaction presented again must be the purchase recorded under its id. Another product at the
/// App Store, another purchase token or Play product at Google Play, or another store is refused with
/// `transaction-conflict`, and nothing changes: not the record, not the attempts.
@Suite struct LedgerTransactionConflictTests {
    static func refused(_ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("the conflicting transaction was recorded")
        } catch let error as LedgerError {
            #expect(error.code == .conflict, "\(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(arguments: Engine.tested)
    func anotherProductUnderAnAppStoreIdIsRefusedAndChangesNothing(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let level = PurchaseTransaction(id: "3200", originalId: "3200", productId: "com.example.level1", purchaseDate: 1_000)
            let first = try await ledger.recordRedemption(
                level, productType: .nonConsumable, appAccountToken: nil, client: "192.0.2.1", activitySince: 0, now: 100)
            var coins = level
            coins.productId = "com.example.coins"
            coins.expiresDate = 9_000
            await Self.refused {
                _ = try await ledger.recordRedemption(
                    coins, productType: .consumable, appAccountToken: "b", client: "192.0.2.2", activitySince: 0, now: 150)
            }
            await Self.refused { _ = try await ledger.recordTransaction(coins, productType: .consumable, now: 160) }
            #expect(try await ledger.transaction(id: "3200") == first.transaction)
            // The refused attempt was not recorded: the attempt before the next one is the first.
            let again = try await ledger.recordRedemption(
                level, productType: .nonConsumable, appAccountToken: nil, client: "192.0.2.1", activitySince: 0, now: 200)
            #expect(again.previousAttempt == 100)
            #expect(again.activity == RedemptionActivity(appAccountTokens: 0, clientAddresses: 1))
        }
    }

    @Test(arguments: Engine.tested)
    func anotherPurchaseUnderAGooglePlayOrderIdIsRefused(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let level = PurchaseTransaction(
                id: "GPA.1234-5678-9012-34567", originalId: "GPA.1234-5678-9012-34567", productId: "com.example.level1",
                purchaseDate: 1_000, store: .googlePlay, storeProductId: "level1", purchaseToken: "token-a")
            let first = try await ledger.recordTransaction(level, productType: .nonConsumable, now: 100)
            var otherToken = level
            otherToken.purchaseToken = "token-b"
            await Self.refused { _ = try await ledger.recordTransaction(otherToken, productType: .nonConsumable, now: 110) }
            var otherProduct = level
            otherProduct.storeProductId = "coins"
            await Self.refused { _ = try await ledger.recordTransaction(otherProduct, productType: .nonConsumable, now: 120) }
            var otherStore = level
            otherStore.store = .appStore
            await Self.refused { _ = try await ledger.recordTransaction(otherStore, productType: .nonConsumable, now: 130) }
            #expect(try await ledger.transaction(id: level.id) == first)
            // Depot's own product id follows the configuration's mapping: a remapped product is the same purchase.
            var remapped = level
            remapped.productId = "com.example.level1.remastered"
            let moved = try await ledger.recordTransaction(remapped, productType: .nonConsumable, now: 140)
            #expect(moved.transaction.productId == "com.example.level1.remastered")
        }
    }
}
