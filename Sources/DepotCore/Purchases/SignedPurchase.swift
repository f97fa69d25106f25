/// A purchase as the app presents it, before any check: the store's own signed form.
public enum SignedPurchase: Sendable, Hashable {
    /// A StoreKit signed transaction (JWS, `VerificationResult.jwsRepresentation`).
    case appStore(jws: String)
    /// A Play Billing purchase: `Purchase.getOriginalJson()` exactly as signed, and `Purchase.getSignature()`
    /// (base64).
    case googlePlay(purchaseData: String, signature: String)

    /// The store that signed it.
    public var store: PurchaseStore {
        switch self {
        case .appStore: .appStore
        case .googlePlay: .googlePlay
        }
    }
}
