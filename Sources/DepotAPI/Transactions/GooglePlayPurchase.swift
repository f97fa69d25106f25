/// A Google Play purchase as Play Billing gives it to the app.
public struct GooglePlayPurchase: Sendable, Hashable, Codable {
    /// `Purchase.getOriginalJson()`, exactly as received: the signature covers these bytes, so the app must not
    /// re-serialize, reformat or trim them.
    public var purchaseData: String
    /// `Purchase.getSignature()`: base64 of Google Play's signature over `purchaseData`.
    public var signature: String

    /// A purchase as the app holds it.
    public init(purchaseData: String, signature: String) {
        self.purchaseData = purchaseData
        self.signature = signature
    }
}
