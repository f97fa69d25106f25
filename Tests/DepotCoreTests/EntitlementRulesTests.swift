import DepotTestSupport
import Testing

@testable import DepotCore

@Suite("Entitlements by product type, on a fixed clock")
struct EntitlementRulesTests {
    static let day: Int64 = 86_400
    /// 2026-01-01T00:00:00Z in seconds.
    static let origin: Int64 = 1_767_225_600

    static func at(day number: Int64) -> Int64 { origin + number * day }
    static func ms(day number: Int64) -> Int64 { at(day: number) * 1000 }

    static let catalog = Catalog(
        products: [
            Product(id: "level", type: .nonConsumable, title: "Level"),
            Product(id: "coins", type: .consumable, title: "Coins"),
            Product(id: "monthly", type: .autoRenewable, title: "Monthly"),
            Product(id: "season", type: .nonRenewing, title: "Season", periodSeconds: 30 * day),
            Product(id: "free", type: .freeSubscription, title: "Free"),
        ],
        versions: [
            version("level", "level", day: 0), version("coins", "coins", day: 0),
            version("monthly", "issue-1", day: 5), version("monthly", "issue-2", day: 40),
            version("monthly", "issue-3", day: 75), version("monthly", "issue-4", day: 200),
            version("season", "s-1", day: 10), version("season", "s-2", day: 45), version("season", "s-3", day: 70),
            version("free", "f-1", day: 1), version("free", "f-2", day: 100),
        ])

    static func version(_ product: String, _ content: String, day: Int64) -> ContentVersion {
        ContentVersion(
            productId: product, contentId: content, version: "1.0", publishedAt: at(day: day),
            digest: .labelled(content), size: 1, unpackedSize: 1)
    }

    static func purchase(
        _ id: String, _ product: String, day: Int64, expires: Int64? = nil, original: String? = nil,
        revoked: Int64? = nil, quantity: Int = 1
    ) -> PurchaseTransaction {
        PurchaseTransaction(
            id: id, originalId: original ?? id, productId: product, purchaseDate: ms(day: day),
            expiresDate: expires.map { ms(day: $0) }, revocationDate: revoked.map { ms(day: $0) }, quantity: quantity)
    }

    static func contents(
        _ transaction: PurchaseTransaction, related: [PurchaseTransaction] = [], finished: Bool = false, now: Int64 = 150
    ) -> Result<[String], EntitlementRules.Refusal> {
        EntitlementRules.entitledContents(
            of: transaction, related: related, isFinished: finished, catalog: catalog, now: ms(day: now)
        ).map { $0.map(\.contentId) }
    }

    @Test func nonConsumableAlwaysEntitlesItsContent() {
        #expect(Self.contents(Self.purchase("t1", "level", day: 3)) == .success(["level"]))
        #expect(Self.contents(Self.purchase("t1", "level", day: 3), finished: true) == .success(["level"]))
    }

    @Test func consumableEntitlesUntilFinished() {
        #expect(Self.contents(Self.purchase("t1", "coins", day: 3)) == .success(["coins"]))
        #expect(Self.contents(Self.purchase("t1", "coins", day: 3), finished: true) == .failure(.consumableFinished))
    }

    @Test func revokedAndUnknownAreRefused() {
        #expect(Self.contents(Self.purchase("t1", "level", day: 3, revoked: 4)) == .failure(.revoked))
        #expect(Self.contents(Self.purchase("t1", "nope", day: 3)) == .failure(.unknownProduct))
    }

    /// A timeline with a lapse: subscribed days 0-30 and 30-60, lapsed 60-90, renewed 90-120.
    @Test(arguments: [
        // (renewals known, issues entitled)
        (["a"], ["issue-1"]),
        (["a", "b"], ["issue-1", "issue-2"]),
        (["a", "b", "c"], ["issue-1", "issue-2"]),  // issue-3 (day 75) was published during the lapse
        (["c"], [String]()),
    ])
    func autoRenewableIssuesFollowActivePeriods(known: [String], expected: [String]) {
        let timeline = [
            "a": Self.purchase("a", "monthly", day: 0, expires: 30, original: "a"),
            "b": Self.purchase("b", "monthly", day: 30, expires: 60, original: "a"),
            "c": Self.purchase("c", "monthly", day: 90, expires: 120, original: "a"),
        ]
        let presented = timeline[known.last!]!
        let related = known.compactMap { timeline[$0] }
        #expect(Self.contents(presented, related: related) == .success(expected))
    }

    @Test func issuesOnEitherSideOfALapseAreEntitledButNotInside() {
        let renewals = [
            Self.purchase("a", "monthly", day: 0, expires: 60, original: "a"),
            Self.purchase("c", "monthly", day: 70, expires: 210, original: "a"),
        ]
        // issue-3 published day 75 is inside the second period; issue-4 (day 200) too.
        #expect(Self.contents(renewals[1], related: renewals, now: 205) == .success(["issue-1", "issue-2", "issue-3", "issue-4"]))
        // Before issue-4 is published it is not offered.
        #expect(Self.contents(renewals[1], related: renewals, now: 150) == .success(["issue-1", "issue-2", "issue-3"]))
        let lapsed = [
            Self.purchase("a", "monthly", day: 0, expires: 60, original: "a"),
            Self.purchase("c", "monthly", day: 80, expires: 210, original: "a"),
        ]
        #expect(Self.contents(lapsed[1], related: lapsed, now: 205) == .success(["issue-1", "issue-2", "issue-4"]))
    }

    @Test func aRevokedRenewalRemovesItsPeriodOnly() {
        let renewals = [
            Self.purchase("a", "monthly", day: 0, expires: 30, original: "a"),
            Self.purchase("b", "monthly", day: 30, expires: 60, original: "a", revoked: 35),
        ]
        #expect(Self.contents(renewals[0], related: renewals) == .success(["issue-1"]))
    }

    @Test(arguments: [
        // (purchase days, entitled seasons) with a 30-day period
        ([Int64(0)], ["s-1"]),  // days 0-30
        ([0, 5], ["s-1", "s-2"]),  // stacked: 0-60
        ([0, 50], ["s-1", "s-3"]),  // 0-30 and 50-80: s-2 (45) is in the gap; s-3 (70) inside the second
        ([40], ["s-2"]),  // 40-70: s-3 published at day 70 is outside the half-open period
        ([0, 0], ["s-1", "s-2"]),  // two purchases the same day: 0-60
    ])
    func nonRenewingPeriodsStack(days: [Int64], expected: [String]) {
        let purchases = days.enumerated().map { Self.purchase("p\($0.offset)", "season", day: $0.element) }
        #expect(Self.contents(purchases.last!, related: purchases) == .success(expected))
    }

    @Test func freeSubscriptionGetsEveryPublishedIssue() {
        #expect(Self.contents(Self.purchase("f", "free", day: 150)) == .success(["f-1", "f-2"]))
        #expect(Self.contents(Self.purchase("f", "free", day: 50), now: 60) == .success(["f-1"]))
    }

    @Test func periodsMergeTouchingAndOverlappingIntervals() {
        let periods = SubscriptionPeriods([10..<20, 0..<5, 5..<8, 15..<30, 40..<40])
        #expect(periods.intervals == [0..<8, 10..<30])
        #expect(periods.contains(7) && !periods.contains(8) && periods.contains(29) && !periods.contains(30))
    }
}
