import Testing

@testable import DepotCore

/// A transaction is judged by the type it was redeemed under when one was recorded, else by the catalog's.
@Suite struct RedeemedTypeRulesTests {
    typealias E = EntitlementRulesTests

    @Test(arguments: [
        // (product, recorded, judged)
        ("coins", ProductType?.none, ProductType?.some(.consumable)),
        ("coins", .nonConsumable, .nonConsumable),
        ("level", .consumable, .consumable),
        ("level", nil, .nonConsumable),
        ("gone", .autoRenewable, .autoRenewable),
        ("gone", nil, nil),
    ])
    func theRecordedTypeWinsOverTheCatalogs(product: String, recorded: ProductType?, judged: ProductType?) {
        #expect(E.catalog.judgedType(productId: product, recorded: recorded) == judged)
    }

    static func contents(
        _ transaction: PurchaseTransaction, redeemedAs type: ProductType?, finished: Bool
    ) -> Result<[String], EntitlementRules.Refusal> {
        EntitlementRules.entitledContents(
            of: transaction, redeemedAs: type, related: [], isFinished: finished, catalog: E.catalog, now: E.ms(day: 150)
        ).map { $0.map(\.contentId) }
    }

    @Test func aFinishedTransactionFollowsTheTypeItWasRedeemedUnder() {
        // The catalog says "level" is a non-consumable and "coins" a consumable.
        let level = E.purchase("t1", "level", day: 3)
        let coins = E.purchase("t2", "coins", day: 3)
        #expect(Self.contents(level, redeemedAs: .consumable, finished: true) == .failure(.consumableFinished))
        #expect(Self.contents(level, redeemedAs: nil, finished: true) == .success(["level"]))
        #expect(Self.contents(coins, redeemedAs: .nonConsumable, finished: true) == .success(["coins"]))
        #expect(Self.contents(coins, redeemedAs: nil, finished: true) == .failure(.consumableFinished))
        // The content still comes from the catalog: a product no longer sold entitles nothing.
        #expect(Self.contents(E.purchase("t3", "gone", day: 3), redeemedAs: .nonConsumable, finished: false) == .failure(.unknownProduct))
    }
}
