import Testing

@testable import DepotCore

/// `RefundRules`: how a store's account of a refund becomes the units Depot revokes, table by table.
@Suite("Refund rules: units revoked by percentage, policy and void")
struct RefundRulesTests {
    /// (percentage in milliunits, quantity, units expected); nil when out of bounds.
    static let unitRows: [(Int, Int, Int?)] = [
        (33_333, 3, 1), (66_667, 3, 2), (100_000, 3, 3), (0, 3, 0), (16_666, 3, 0), (16_667, 3, 1),
        (50_000, 1, 1), (49_999, 1, 0), (100_000, 1_000_000, 1_000_000), (1, 1_000_000, 10), (25_000, 4, 1),
        (100_001, 3, nil), (-1, 3, nil), (Int.max, 3, nil), (Int.min, 3, nil), (50_000, -1, nil), (100_000, Int.max, nil),
    ]

    @Test(arguments: unitRows)
    func unitsAreTheShareOfTheWholeQuantityRoundedHalfUp(row: (Int, Int, Int?)) {
        #expect(RefundRules.units(percentage: row.0, of: row.1) == row.2, "\(row)")
    }

    static func transaction(
        quantity: Int, kind: PurchaseRevocation.Kind?, percentage: Int? = nil, units: Int? = nil
    ) -> PurchaseTransaction {
        var transaction = PurchaseTransaction(
            id: "1", originalId: "1", productId: "p", purchaseDate: 1_000, revocationDate: kind == nil ? nil : 5_000,
            quantity: quantity)
        if let kind {
            transaction.revocation = PurchaseRevocation(
                kind: kind, percentage: percentage, at: 5_000, revokedQuantity: units ?? quantity)
        }
        return transaction
    }

    /// (kind, percentage, quantity, product type, policy, units given, units expected, revoked whole).
    static let settleRows: [(PurchaseRevocation.Kind, Int?, Int, ProductType?, ProratedRefundPolicy, Int?, Int, Bool)] = [
        (.refundProrated, 33_333, 3, .consumable, .revoke, nil, 1, false),
        (.refundProrated, 33_333, 3, .consumable, .keep, nil, 1, false),
        (.refundProrated, 100_000, 3, .consumable, .revoke, nil, 3, true),
        (.refundProrated, 99_999, 3, .consumable, .revoke, nil, 3, true),
        (.refundProrated, 10_000, 3, .consumable, .revoke, nil, 0, false),
        (.refundProrated, nil, 3, .consumable, .revoke, nil, 3, true),
        (.refundProrated, 50_000, 1, .nonConsumable, .revoke, nil, 1, true),
        (.refundProrated, 50_000, 1, .nonConsumable, .keep, nil, 0, false),
        (.refundProrated, 50_000, 1, .autoRenewable, .keep, nil, 0, false),
        (.refundProrated, 50_000, 1, nil, .revoke, nil, 1, true),
        (.refundFull, nil, 3, .consumable, .keep, nil, 3, true),
        (.familyRevoke, nil, 1, .nonConsumable, .keep, nil, 1, true),
        (.voided, nil, 3, .consumable, .revoke, 1, 1, false),
        (.voided, nil, 3, .consumable, .revoke, 3, 3, true),
        (.voided, nil, 3, .consumable, .revoke, 7, 3, true),
        (.voided, nil, 3, .consumable, .revoke, -4, 0, false),
    ]

    @Test(arguments: settleRows)
    func aRefundIsSettledIntoUnits(row: (PurchaseRevocation.Kind, Int?, Int, ProductType?, ProratedRefundPolicy, Int?, Int, Bool)) {
        let (kind, percentage, quantity, type, policy, given, expected, whole) = row
        let settled = RefundRules.settled(
            Self.transaction(quantity: quantity, kind: kind, percentage: percentage, units: given), type: type, prorated: policy)
        #expect(settled.revocation?.revokedQuantity == expected, "\(row)")
        #expect(settled.revokedQuantity == expected, "\(row)")
        #expect(settled.isRevoked == whole, "\(row)")
        #expect(settled.revocation?.kind == kind && settled.revocation?.percentage == percentage, "\(row)")
        if whole { #expect(settled.revocationDate == 5_000) }
    }

    @Test func aTransactionWithoutARefundIsUnchanged() {
        let plain = Self.transaction(quantity: 3, kind: nil)
        #expect(RefundRules.settled(plain, type: .consumable) == plain)
        #expect(plain.revokedQuantity == 0)
        var legacy = plain
        legacy.revocationDate = 9_000
        // A revocation recorded before refunds were told apart: every unit.
        #expect(RefundRules.settled(legacy, type: .consumable) == legacy)
        #expect(legacy.revokedQuantity == 3)
    }

    /// (quantity, voidedQuantity, refundableQuantity, units expected).
    static let googleRows: [(Int, Int?, Int?, Int?)] = [
        (3, 1, nil, 1), (3, 1, 2, 1), (3, 1, 1, 2), (3, nil, 2, 1), (3, nil, 0, 3), (3, nil, 3, nil), (3, nil, nil, nil),
        (3, 0, nil, nil), (3, 4, nil, nil), (3, -1, -1, nil), (3, nil, 4, nil), (3, Int.max, Int.min, nil), (0, 1, 0, nil),
        (1, 1, nil, 1),
    ]

    @Test(arguments: googleRows)
    func googlePlayUnitsTakeTheLargerAccountWithinTheQuantity(row: (Int, Int?, Int?, Int?)) {
        #expect(RefundRules.googlePlayUnits(quantity: row.0, voidedQuantity: row.1, refundableQuantity: row.2) == row.3, "\(row)")
    }

    @Test func onlyConsumablesCannotBeShared() {
        #expect(ProductType.allCases.filter { !PurchaseOwnership.canShare($0) } == [.consumable])
    }
}
