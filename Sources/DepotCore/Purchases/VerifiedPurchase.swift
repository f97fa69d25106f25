/// A purchase whose store signature was checked: what the delivery flow (redeem, finish, restore) takes,
/// whichever store sold it. Only a store's verifier makes one.
public struct VerifiedPurchase: Sendable, Equatable {
    /// The purchase as the ledger records it: ids, product, dates, revocation, quantity, account token,
    /// environment.
    public var transaction: PurchaseTransaction

    /// A verified purchase: `transaction` as recorded, marked as signed by `store`.
    public init(store: PurchaseStore, transaction: PurchaseTransaction) {
        var transaction = transaction
        transaction.store = store
        self.transaction = transaction
    }

    /// The store that signed it.
    public var store: PurchaseStore { transaction.store }

    /// The store's transaction identifier.
    public var id: String { transaction.id }
    /// The product bought.
    public var productId: String { transaction.productId }
}
