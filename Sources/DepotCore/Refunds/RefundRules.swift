/// How a store's account of a refund becomes what Depot records: which units are revoked, and whether the purchase
/// is revoked whole. Pure, so every path that learns of a refund (a redeem, a notification, a void) decides alike.
///
/// - A prorated refund (Apple's `REFUND_PRORATED` with a `revocationPercentage` below 100000) of a consumable revokes
///   its percentage of the whole quantity, rounded to units (1 of 3 is 33333 milliunits: one unit); of any other
///   product, what its ``ProratedRefundPolicy`` says: every unit (`revoke`, the default) or none (`keep`, the refund
///   recorded all the same).
/// - A Google Play void names its units (`voidedQuantity`, or the drop in `refundableQuantity`), kept within the
///   quantity.
/// - Anything else (a full refund, a family sharing revoked, a revocation that names no type) revokes every unit.
///
/// A purchase with every unit revoked keeps a ``PurchaseTransaction/revocationDate`` (the store's, or the
/// revocation's time) and is revoked; one revoked in part has none, and keeps its entitlement for what remains.
public enum RefundRules {
    /// Units a percentage of the whole quantity stands for, rounded half up; nil when either is out of bounds.
    public static func units(percentage: Int, of quantity: Int) -> Int? {
        guard PurchaseRevocation.percentages.contains(percentage), quantity >= 0 else { return nil }
        let (product, overflow) = percentage.multipliedReportingOverflow(by: quantity)
        guard !overflow else { return nil }
        let (rounded, carry) = product.addingReportingOverflow(50_000)
        guard !carry else { return nil }
        return min(quantity, rounded / 100_000)
    }

    /// `transaction` as it is to be recorded, for a product of `type` (nil: not in the catalog, judged as not
    /// counted in units) under `prorated`.
    public static func settled(
        _ transaction: PurchaseTransaction, type: ProductType?, prorated: ProratedRefundPolicy = .revoke
    ) -> PurchaseTransaction {
        guard var revocation = transaction.revocation else { return transaction }
        var settled = transaction
        let quantity = max(1, transaction.quantity)
        switch revocation.kind {
        case .refundProrated:
            if let percentage = revocation.percentage, percentage < 100_000 {
                if type == .consumable {
                    revocation.revokedQuantity = units(percentage: percentage, of: quantity) ?? quantity
                } else {
                    revocation.revokedQuantity = prorated == .keep ? 0 : quantity
                }
            } else {
                revocation.revokedQuantity = quantity
            }
        case .voided:
            revocation.revokedQuantity = min(quantity, max(0, revocation.revokedQuantity))
        case .refundFull, .familyRevoke:
            revocation.revokedQuantity = quantity
        }
        settled.revocation = revocation
        settled.revocationDate = revocation.revokedQuantity >= quantity ? (transaction.revocationDate ?? revocation.at) : nil
        return settled
    }
}
