/// A purchase whose store signature was checked: what the delivery flow (redeem, finish, restore) takes,
/// whichever store sold it. Only a store's verifier makes one.
public struct VerifiedPurchase: Sendable, Equatable {
    /// The store that signed it.
    public var store: PurchaseStore
    /// The purchase as the ledger records it: ids, product, dates, revocation, quantity, account token,
    /// environment.
    public var transaction: PurchaseTransaction

    /// A verified purchase.
    public init(store: PurchaseStore, transaction: PurchaseTransaction) {
        self.store = store
        self.transaction = transaction
    }

    /// The store's transaction identifier.
    public var id: String { transaction.id }
    /// The product bought.
    public var productId: String { transaction.productId }
}
