import DepotCore

/// What names the purchase recorded under a transaction id, as far as a store's signed data can say: a transaction
/// presented again under that id must be the same purchase. A store never gives one id to two purchases, so a
/// difference means data that is not the store's own, and merging it would overwrite one purchase with another.
struct TransactionIdentity {
    /// The store's raw value (`PurchaseStore`).
    var store: String
    /// Depot's product id.
    var productId: String
    /// The store's own product id, when it differs from Depot's (Google Play).
    var storeProductId: String?
    /// Google Play's purchase token.
    var purchaseToken: String?

    /// What in `presented` differs from this record, as words for the log, or nil when it is the same purchase.
    /// At the App Store the product is the transaction's own; at Google Play the purchase token and Play's product
    /// id are, while Depot's product id follows the configuration's mapping and may change with it.
    func conflict(with presented: PurchaseTransaction) -> String? {
        if store != presented.store.rawValue { return "the store \(store), not \(presented.store.rawValue)" }
        switch presented.store {
        case .appStore:
            if productId != presented.productId { return "the product \(productId), not \(presented.productId)" }
        case .googlePlay:
            if let recorded = purchaseToken, let token = presented.purchaseToken, recorded != token {
                return "another purchase token"
            }
            if let recorded = storeProductId, let product = presented.storeProductId, recorded != product {
                return "the Play product \(recorded), not \(product)"
            }
        }
        return nil
    }
}
