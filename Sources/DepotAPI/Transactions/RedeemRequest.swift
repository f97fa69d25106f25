/// The body of `POST /v1/transactions`.
public struct RedeemRequest: Sendable, Equatable, Codable {
    /// The signed transaction as StoreKit gives it (`VerificationResult.jwsRepresentation`).
    public var signedTransaction: String
    /// What the app already has installed, so a download can be a delta.
    public var installed: [InstalledContent]?
    /// The app's own account identity (a UUID, as StoreKit's `appAccountToken`): who is redeeming, which the
    /// signed transaction cannot say, since its token is fixed at purchase.
    public var appAccountToken: String?

    /// A redeem request.
    public init(signedTransaction: String, installed: [InstalledContent]? = nil, appAccountToken: String? = nil) {
        self.signedTransaction = signedTransaction
        self.installed = installed
        self.appAccountToken = appAccountToken
    }
}
