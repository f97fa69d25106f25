import DepotCore
import DepotLedger
import DepotServices
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// A rollout's audience comes from signed data and the ledger alone: the account the app sends does not pick the
/// buyer's bucket, and claiming to have the rollout's version installed does not make a halted (or running)
/// rollout hand out its bundle. Over a real SQLite ledger.
@Suite("Rollout audience")
struct RolloutAudienceTests {
    static let rolling = ContentVersion(
        productId: DeliveryFlowFixture.levels, contentId: "levels", version: "2.0", publishedAt: 2_000,
        digest: .repeating("b"), size: 100, unpackedSize: 200)

    /// The fixture's catalog with 2.0 of the levels rolling out to 10% as `release` says.
    static func install(_ release: VersionRelease, in fixture: DeliveryFlowFixture, revision: Int64) throws {
        let current = fixture.context.catalog
        let catalog = Catalog(
            products: current.products, versions: current.versions,
            limited: [LimitedRelease(version: rolling, release: release)])
        #expect(try fixture.context.catalogs.install(catalog, revision: revision, now: Int64(Date().timeIntervalSince1970)))
    }

    static func within(_ buyer: String) -> Bool {
        RolloutBucket.isWithin(percent: 10, contentId: "levels", version: "2.0", buyer: buyer)
    }

    /// A transaction id whose original-id bucket is inside the 10% rollout (or outside it).
    static func transactionId(inside: Bool, prefix: String) -> String {
        (0...).lazy.map { "\(prefix)\($0)" }.first { within("transaction:" + $0) == inside }!
    }

    static func versions(_ result: RedemptionFlow.Result) -> [String] {
        result.downloads.map(\.version)
    }

    @Test func theAccountTheAppSendsDoesNotPickTheBucket() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        try Self.install(.rollout(10), in: fixture, revision: 2)
        let id = Self.transactionId(inside: false, prefix: "61")
        // An account whose bucket the rollout takes: sent by the app, it is not who the buyer is.
        let steering = (0...).lazy.map { _ in UUID().uuidString.lowercased() }.first { Self.within("account:" + $0) }!
        let purchase = DeliveryFlowFixture.purchase(id, of: DeliveryFlowFixture.levels)
        #expect(Self.versions(try await fixture.redeem(purchase, account: steering)) == ["1.0"])
        // A signed account token does decide.
        var signed = DeliveryFlowFixture.purchase(Self.transactionId(inside: false, prefix: "62"), of: DeliveryFlowFixture.levels)
        signed.transaction.appAccountToken = steering
        #expect(Self.versions(try await fixture.redeem(signed)) == ["2.0"])
    }

    @Test func claimingTheRolloutsVersionDoesNotHandItOut() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        try Self.install(.rollout(10), in: fixture, revision: 2)
        let insider = DeliveryFlowFixture.purchase(Self.transactionId(inside: true, prefix: "71"), of: DeliveryFlowFixture.levels)
        #expect(Self.versions(try await fixture.redeem(insider)) == ["2.0"])
        let outsider = DeliveryFlowFixture.purchase(Self.transactionId(inside: false, prefix: "72"), of: DeliveryFlowFixture.levels)
        let claim = RedemptionFlow.Command(purchase: outsider, installed: ["levels": "2.0"], callerAccount: nil, client: "192.0.2.1")
        #expect(Self.versions(try await fixture.redemption.redeem(claim)) == ["1.0"])

        // Halted: the ledger's offers decide who keeps 2.0; a claim does not.
        try Self.install(VersionRelease(channel: .production, percent: 10, halted: true), in: fixture, revision: 3)
        #expect(Self.versions(try await fixture.redeem(insider)) == ["2.0"])
        #expect(Self.versions(try await fixture.redemption.redeem(claim)) == ["1.0"])
        let fresh = DeliveryFlowFixture.purchase(Self.transactionId(inside: false, prefix: "73"), of: DeliveryFlowFixture.levels)
        let freshClaim = RedemptionFlow.Command(purchase: fresh, installed: ["levels": "2.0"], callerAccount: nil, client: "192.0.2.2")
        #expect(Self.versions(try await fixture.redemption.redeem(freshClaim)) == ["1.0"])
    }
}
