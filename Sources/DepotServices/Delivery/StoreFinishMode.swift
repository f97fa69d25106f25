import DepotCore

/// Who finishes a transaction at its store once Depot recorded its delivery, as the finish answer says.
package enum StoreFinishMode: String, Sendable, Equatable {
    /// Depot finishes it at the store through its outbox; the app's own `finish()` is optional and harmless.
    case server
    /// Depot does not call the store: the app finishes the transaction itself.
    case app
    /// The transaction's environment has no store server (Xcode, StoreKit Testing): the app finishes it.
    case notApplicable = "not-applicable"
}

extension StoreFinishMode {
    /// The mode as a sentence for a transaction of `store`.
    package func detail(for store: PurchaseStore) -> String {
        switch store {
        case .appStore: detail
        case .googlePlay: googlePlayDetail
        }
    }

    /// The mode as a sentence for a Google Play purchase.
    var googlePlayDetail: String {
        switch self {
        case .server:
            "Depot acknowledges (or consumes) this purchase at Google Play itself; the app need not call Play Billing."
        case .app:
            "Depot does not call the Google Play Developer API; acknowledge the purchase now (Play Billing's acknowledgePurchase, or consumeAsync for a consumable), or Google refunds it after three days."
        case .notApplicable:
            "This purchase is not sent to the Google Play Developer API; acknowledge or consume it with Play Billing now."
        }
    }
}
