import DepotCore
import DepotLedger
import DepotServices
import Foundation
import Testing

/// A purchase keeps the terms it was first answered under when its product's type changes in the catalog: a
/// family-shared purchase recorded as a non-consumable is not refused as a shared consumable afterwards.
@Suite("Judgement by the recorded type")
struct RecordedTypeJudgementTests {
    /// The levels product turned consumable in the catalog served from now on.
    static func levelsTurnedConsumable() -> Catalog {
        Catalog(
            products: [
                Product(id: DeliveryFlowFixture.levels, type: .consumable, title: "Levels"),
                Product(id: DeliveryFlowFixture.coins, type: .consumable, title: "Coins"),
            ],
            versions: [DeliveryFlowFixture.levelsVersion, DeliveryFlowFixture.coinsVersion])
    }

    @Test func aFamilySharedPurchaseRecordedAsANonConsumableStaysSharedWhenItsProductTurnsConsumable() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        var shared = DeliveryFlowFixture.purchase("7001", of: DeliveryFlowFixture.levels)
        shared.transaction.ownership = .familyShared
        let first = try await fixture.redeem(shared)
        #expect(first.downloads.count == 1)
        let now = Int64(Date().timeIntervalSince1970)
        #expect(try fixture.context.catalogs.install(Self.levelsTurnedConsumable(), revision: 2, now: now))
        // Redeemed again, it is judged as the non-consumable it was recorded as: still delivered.
        let again = try await fixture.redeem(shared)
        #expect(again.downloads.count == 1)
        // A new family-shared purchase of the product, now a consumable, is refused.
        var newcomer = DeliveryFlowFixture.purchase("7002", of: DeliveryFlowFixture.levels)
        newcomer.transaction.ownership = .familyShared
        await #expect(throws: DeliveryError.self) { try await fixture.redeem(newcomer) }
    }

    @Test func aRefundOfAPurchaseRecordedAsANonConsumableIsJudgedAsOneWhenItsProductTurnsConsumable() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        var purchase = DeliveryFlowFixture.purchase("7101", of: DeliveryFlowFixture.levels)
        _ = try await fixture.redeem(purchase)
        let now = Int64(Date().timeIntervalSince1970)
        #expect(try fixture.context.catalogs.install(Self.levelsTurnedConsumable(), revision: 2, now: now))
        // A prorated refund of a third: as a consumable of one unit, a third rounds to nothing; as the
        // non-consumable it was recorded as, the default policy revokes it.
        purchase.transaction.revocationDate = now * 1000
        purchase.transaction.revocation = PurchaseRevocation(kind: .refundProrated, percentage: 33_333, at: now * 1000, revokedQuantity: 0)
        await #expect(throws: DeliveryError.self) { try await fixture.redeem(purchase) }
        let stored = try await fixture.ledger.transaction(id: "7101")
        #expect(stored?.transaction.isRevoked == true)
    }
}
