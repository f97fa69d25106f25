import DepotCore
import DepotLedger

extension DeliveryContext {
    /// `transaction` as it is to be recorded: its refund judged by `RefundRules` for the product's type in the
    /// catalog served now and the product's prorated-refund policy.
    package func settled(_ transaction: PurchaseTransaction, type: ProductType? = nil) -> PurchaseTransaction {
        RefundRules.settled(
            transaction, type: type ?? catalog.product(id: transaction.productId)?.type,
            prorated: proratedRefunds[transaction.productId] ?? .revoke)
    }

    /// Refuses a family-shared purchase of a product that cannot be shared (a consumable), before anything is
    /// recorded: Apple shares non-consumables and subscriptions only.
    package func checkOwnership(_ transaction: PurchaseTransaction, type: ProductType?) throws(DeliveryError) {
        guard transaction.ownership == .familyShared, let type, !PurchaseOwnership.canShare(type) else { return }
        throw .purchaseRefused(
            PurchaseRefusal(
                code: "family-sharing-not-allowed",
                message: "\(transaction.productId) is a consumable: a consumable cannot be family shared"))
    }
}
