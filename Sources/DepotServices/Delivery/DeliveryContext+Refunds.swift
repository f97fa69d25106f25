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

    /// The type `transaction` is judged by: the one the ledger recorded it under when it is known there (a
    /// product's type may change in the catalog, but a purchase keeps the terms it was first answered under), else
    /// the product's type in the catalog served now.
    package func judgedType(of transaction: PurchaseTransaction) async throws(DeliveryError) -> ProductType? {
        let ledger = ledger
        let stored = try await ledgerCall { () async throws(LedgerError) in
            try await ledger.transaction(id: transaction.id)
        }
        return catalog.judgedType(productId: transaction.productId, recorded: stored?.productType)
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
