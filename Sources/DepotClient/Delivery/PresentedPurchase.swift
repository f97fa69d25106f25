import Foundation

/// A purchase as the app holds it, from either store: what a redeem presents.
public enum PresentedPurchase: Sendable, Hashable {
    /// StoreKit's signed transaction (`VerificationResult.jwsRepresentation`).
    case appStore(signedTransaction: String)
    /// Play Billing's purchase: `getOriginalJson()` exactly as received, and `getSignature()`.
    case googlePlay(GooglePlayPurchase)
    /// A StoreKit 1 purchase: the app receipt (`Bundle.main.appStoreReceiptURL`'s contents), the
    /// `SKPaymentTransaction`'s `transactionIdentifier` and, for servers that check it, the device's
    /// `UIDevice.current.identifierForVendor` (the receipt must have been issued to it).
    case appReceipt(Data, transactionId: String, deviceId: UUID? = nil)

    /// The body of a redeem of this purchase.
    func redeemRequest(installed: [InstalledContent], appAccountToken: String?) -> RedeemRequest {
        switch self {
        case .appStore(let jws):
            RedeemRequest(signedTransaction: jws, installed: installed, appAccountToken: appAccountToken)
        case .googlePlay(let purchase):
            RedeemRequest(googlePlay: purchase, installed: installed, appAccountToken: appAccountToken)
        case .appReceipt(let receipt, let transactionId, let deviceId):
            RedeemRequest(
                appReceipt: receipt.base64EncodedString(), transactionId: transactionId,
                deviceId: deviceId?.uuidString.lowercased(), installed: installed, appAccountToken: appAccountToken)
        }
    }
}
