import DepotCore
import DepotLedger
import DepotServices
import DepotTrust
import Foundation
import Testing

/// The delivery flows when this instance cannot serve a bundle a purchase entitles (`Catalog.unservable`): the redeem
/// and the restore are refused for a while and record no offer, and a finish with nothing offered does not complete.
@Suite("Deliveries of a version this instance cannot serve")
struct UnservableDeliveryTests {
    /// The fixture's catalog with the levels version marked unservable.
    static func markLevelsUnservable(_ fixture: DeliveryFlowFixture) throws {
        let current = fixture.context.catalog
        let marked = Catalog(
            products: current.products, versions: current.versions, unservable: [DeliveryFlowFixture.levelsVersion.digest])
        #expect(try fixture.context.catalogs.install(marked, revision: 2, now: Int64(Date().timeIntervalSince1970)))
    }

    @Test func theRedeemIsRefusedAndTheFinishDoesNotCompleteWithNothingOffered() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        try Self.markLevelsUnservable(fixture)
        let purchase = DeliveryFlowFixture.purchase("4001", of: DeliveryFlowFixture.levels)
        await #expect(throws: DeliveryError.bundleUnavailable(retryAfterSeconds: DeliveryContext.bundleRetrySeconds)) {
            try await fixture.redeem(purchase)
        }
        #expect(try await fixture.ledger.offers(transactionId: "4001").isEmpty)
        let token = fixture.context.grants.finishToken(transactionId: "4001")
        await #expect(throws: DeliveryError.nothingDelivered) {
            try await fixture.finishing.finish(.init(transactionId: "4001", finishToken: token, delivered: []))
        }
        #expect(try await fixture.ledger.transaction(id: "4001")?.state == .pending)
        // A restore that would offer it is refused the same way, rather than answering less.
        await #expect(throws: DeliveryError.bundleUnavailable(retryAfterSeconds: DeliveryContext.bundleRetrySeconds)) {
            try await fixture.restoring.restore([purchase], callerAccount: nil, client: "192.0.2.1")
        }
    }

    @Test func anotherProductsRedeemIsNotHeldUp() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        try Self.markLevelsUnservable(fixture)
        let redeemed = try await fixture.redeem(DeliveryFlowFixture.purchase("4002", of: DeliveryFlowFixture.coins))
        #expect(redeemed.downloads.map(\.digest) == [DeliveryFlowFixture.coinsVersion.digest])
    }
}
