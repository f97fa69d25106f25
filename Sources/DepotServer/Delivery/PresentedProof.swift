import DepotCore

/// What a redeem presents: a store's signed purchase, or a StoreKit 1 app receipt and the id of the purchase in it.
enum PresentedProof: Sendable {
    /// A StoreKit 2 signed transaction or a Google Play purchase.
    case signed(SignedPurchase)
    /// An app receipt (base64), the `SKPaymentTransaction`'s `transactionIdentifier` and the device id sent with
    /// them, if any.
    case receipt(String, transactionId: String, deviceId: String?)

    /// The answer's `proof`: `receipt` for a receipt, nil otherwise.
    var proof: String? {
        if case .receipt = self { return "receipt" }
        return nil
    }
}
