import DepotTestSupport
import Testing

@testable import DepotCore

/// The current version follows the clock; subscriptions entitle issues by their first publication;
/// deltas belong to one product's content.
@Suite("Catalog schedule, issue dates and deltas")
struct CatalogScheduleTests {
    typealias E = EntitlementRulesTests

    static func version(_ product: String, _ content: String, _ version: String, day: Int64) -> ContentVersion {
        ContentVersion(
            productId: product, contentId: content, version: version, publishedAt: E.at(day: day),
            digest: .labelled("\(content)-\(version)"), size: 1, unpackedSize: 1)
    }

    static let catalog = Catalog(
        products: [
            Product(id: "level", type: .nonConsumable, title: "Level"),
            Product(id: "monthly", type: .autoRenewable, title: "Monthly"),
            Product(id: "premium", type: .nonConsumable, title: "Premium"),
        ],
        versions: [
            version("level", "level", "1.0", day: 0), version("level", "level", "1.1", day: 300),
            // Issue 2026-09 appeared on day 250 and was corrected (1.1) on day 310.
            version("monthly", "issue-09", "1.0", day: 250), version("monthly", "issue-09", "1.1", day: 310),
        ],
        deltas: [
            DeltaBundle(
                productId: "premium", contentId: "shared", baseVersion: "1.0", targetVersion: "1.1", digest: .labelled("p"), size: 1)
        ])

    @Test(
        arguments: [(Int64(-1), [String]()), (Int64(0), ["1.0"]), (Int64(299), ["1.0"]), (Int64(300), ["1.1"]), (Int64(400), ["1.1"])]
            as [(Int64, [String])])
    func theCurrentVersionIsTheNewestWhoseTimeHasCome(day: Int64, versions: [String]) {
        #expect(Self.catalog.currentContents(of: "level", at: E.at(day: day)).map(\.version) == versions)
    }

    @Test func publicationTimesFollowTheClock() {
        #expect(Self.catalog.lastPublishedAt(at: E.at(day: 299)) == E.at(day: 250))
        #expect(Self.catalog.nextPublication(after: E.at(day: 299)) == E.at(day: 300))
        #expect(Self.catalog.nextPublication(after: E.at(day: 310)) == nil)
        #expect(Self.catalog.lastPublishedAt(at: E.at(day: -1)) == nil)
    }

    @Test func aScheduledVersionDoesNotEmptyAnEntitlement() {
        let buyer = E.purchase("t1", "level", day: 10)
        let before = EntitlementRules.entitledContents(
            of: buyer, related: [], isFinished: false, catalog: Self.catalog, now: E.ms(day: 200))
        #expect((try? before.get())?.map(\.version) == ["1.0"])
        let after = EntitlementRules.entitledContents(of: buyer, related: [], isFinished: false, catalog: Self.catalog, now: E.ms(day: 301))
        #expect((try? after.get())?.map(\.version) == ["1.1"])
    }

    @Test func aCorrectedIssueStaysWithThePeriodItAppearedIn() {
        // September's subscriber (days 240-270) keeps the issue and gets its correction; November's does not get it.
        let september = E.purchase("s1", "monthly", day: 240, expires: 270)
        let november = E.purchase("n1", "monthly", day: 305, expires: 335)
        let now = E.ms(day: 320)
        let septemberGets = EntitlementRules.entitledContents(
            of: september, related: [], isFinished: false, catalog: Self.catalog, now: now)
        #expect((try? septemberGets.get())?.map(\.digest) == [.labelled("issue-09-1.1")])
        let novemberGets = EntitlementRules.entitledContents(of: november, related: [], isFinished: false, catalog: Self.catalog, now: now)
        #expect((try? novemberGets.get())?.isEmpty == true)
    }

    @Test func aDeltaIsFoundOnlyForItsOwnProduct() {
        #expect(Self.catalog.delta(productId: "premium", contentId: "shared", from: "1.0", to: "1.1")?.digest == .labelled("p"))
        #expect(Self.catalog.delta(productId: "level", contentId: "shared", from: "1.0", to: "1.1") == nil)
    }
}
