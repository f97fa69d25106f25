import DepotTestSupport
import Testing

@testable import DepotCore

@Suite("Subscription periods never trap on impossible values")
struct SubscriptionPeriodsTests {
    static func transaction(_ id: String, purchase: Int64, expires: Int64?, revoked: Int64? = nil) -> PurchaseTransaction {
        PurchaseTransaction(
            id: id, originalId: "o", productId: "monthly", purchaseDate: purchase, expiresDate: expires,
            revocationDate: revoked, quantity: 1)
    }

    @Test(
        arguments: [
            ("expires before purchase", [(1_000, 500)], [Range<Int64>]()),
            ("one inverted among good ones", [(0, 100), (300, 200), (150, 250)], [0..<100, 150..<250]),
            ("expires at purchase", [(100, 100)], []),
            ("extremes inverted", [(Int64.max, Int64.min)], []),
            ("extremes in order", [(Int64.min, Int64.max)], [Int64.min..<Int64.max]),
        ] as [(String, [(Int64, Int64)], [Range<Int64>])])
    func autoRenewableSkipsInvertedTransactions(_ name: String, dates: [(Int64, Int64)], expected: [Range<Int64>]) {
        let transactions = dates.enumerated().map { index, pair in
            Self.transaction("t\(index)", purchase: pair.0, expires: pair.1)
        }
        #expect(SubscriptionPeriods.autoRenewable(transactions).intervals == expected, "\(name)")
    }

    @Test(arguments: [Int64.min, -1, 0])
    func nonRenewingWithNoPositiveDurationCoversNothing(duration: Int64) {
        let transactions = [Self.transaction("a", purchase: 100, expires: nil), Self.transaction("b", purchase: 50, expires: nil)]
        #expect(SubscriptionPeriods.nonRenewing(transactions, durationMilliseconds: duration).intervals.isEmpty)
    }

    @Test func farOffPublicationAndPeriodDoNotOverflow() {
        let catalog = Catalog(
            products: [
                Product(id: "monthly", type: .autoRenewable, title: "Monthly"),
                Product(id: "season", type: .nonRenewing, title: "Season", periodSeconds: Int64.max / 10),
            ],
            versions: [
                ContentVersion(
                    productId: "monthly", contentId: "m", version: "1", publishedAt: Int64.min / 10, digest: .labelled("m"),
                    size: 1, unpackedSize: 1),
                ContentVersion(
                    productId: "season", contentId: "s", version: "1", publishedAt: Int64.min / 10, digest: .labelled("s"),
                    size: 1, unpackedSize: 1),
            ])
        let monthly = Self.transaction("m1", purchase: 2_000, expires: 1_000)
        let inverted = EntitlementRules.entitledContents(
            of: monthly, related: [], isFinished: false, catalog: catalog, now: 5_000)
        #expect(inverted == .success([]))
        let season = PurchaseTransaction(
            id: "s1", originalId: "s1", productId: "season", purchaseDate: Int64.min, expiresDate: nil,
            revocationDate: nil, quantity: 1)
        let result = EntitlementRules.entitledContents(of: season, related: [], isFinished: false, catalog: catalog, now: 0)
        #expect(result.map { $0.map(\.contentId) } == .success(["s"]))
    }

    @Test func aGooglePlayPurchaseWithoutExpiryCoversTheOfflinePeriod() {
        let play = PurchaseTransaction(id: "GPA.1", originalId: "GPA.1", productId: "p", purchaseDate: 1_000, store: .googlePlay)
        #expect(SubscriptionPeriods.autoRenewable([play], offlinePeriodMilliseconds: 500).intervals == [1_000..<1_500])
        #expect(SubscriptionPeriods.autoRenewable([play]).intervals.isEmpty, "no period configured: nothing")
        let far = PurchaseTransaction(id: "GPA.2", originalId: "GPA.2", productId: "p", purchaseDate: Int64.max - 1, store: .googlePlay)
        #expect(SubscriptionPeriods.autoRenewable([far], offlinePeriodMilliseconds: 500).intervals == [(Int64.max - 1)..<Int64.max])
        // An App Store transaction without expiry still covers nothing: its expiry is always signed.
        let apple = PurchaseTransaction(id: "1", originalId: "1", productId: "p", purchaseDate: 1_000)
        #expect(SubscriptionPeriods.autoRenewable([apple], offlinePeriodMilliseconds: 500).intervals.isEmpty)
    }
}
