/// The body of `POST /v1/transactions`: one purchase, from either store.
public struct RedeemRequest: Sendable, Equatable, Codable {
    /// An App Store purchase: the signed transaction as StoreKit gives it
    /// (`VerificationResult.jwsRepresentation`). Nil for a Google Play purchase.
    public var signedTransaction: String?
    /// A Google Play purchase. Nil for an App Store purchase.
    public var googlePlay: GooglePlayPurchase?
    /// A StoreKit 1 purchase: the app receipt (standard base64 of `Bundle.main.appStoreReceiptURL`'s contents),
    /// with ``transactionId`` naming the purchase in it.
    public var appReceipt: String?
    /// With ``appReceipt``: the `SKPaymentTransaction`'s `transactionIdentifier`.
    public var transactionId: String?
    /// With ``appReceipt``: the device's `identifierForVendor` (a UUID); the receipt must have been issued to it.
    public var deviceId: String?
    /// What the app already has installed, so a download can be a delta.
    public var installed: [InstalledContent]?
    /// The app's own account identity (a UUID, as StoreKit's `appAccountToken`): who is redeeming, which the
    /// signed transaction cannot say, since its token is fixed at purchase.
    public var appAccountToken: String?

    /// A redeem request for an App Store purchase.
    public init(signedTransaction: String, installed: [InstalledContent]? = nil, appAccountToken: String? = nil) {
        self.signedTransaction = signedTransaction
        self.installed = installed
        self.appAccountToken = appAccountToken
    }

    /// A redeem request for a StoreKit 1 purchase: the app receipt, the transaction's id and, when given, the
    /// device's `identifierForVendor`.
    public init(
        appReceipt: String, transactionId: String, deviceId: String? = nil, installed: [InstalledContent]? = nil,
        appAccountToken: String? = nil
    ) {
        self.appReceipt = appReceipt
        self.transactionId = transactionId
        self.deviceId = deviceId
        self.installed = installed
        self.appAccountToken = appAccountToken
    }

    /// A redeem request for a Google Play purchase.
    public init(googlePlay: GooglePlayPurchase, installed: [InstalledContent]? = nil, appAccountToken: String? = nil) {
        self.googlePlay = googlePlay
        self.installed = installed
        self.appAccountToken = appAccountToken
    }
}
