/// The body of `POST /v1/restore`.
public struct RestoreRequest: Sendable, Equatable, Codable {
    /// Every signed transaction the app holds (StoreKit's `Transaction.currentEntitlements`).
    public var signedTransactions: [String]
    /// What the app already has installed (sent along; a restore answers with whole bundles).
    public var installed: [InstalledContent]?
    /// The app's own account identity, as in `RedeemRequest`.
    public var appAccountToken: String?

    /// A restore request.
    public init(signedTransactions: [String], installed: [InstalledContent]? = nil, appAccountToken: String? = nil) {
        self.signedTransactions = signedTransactions
        self.installed = installed
        self.appAccountToken = appAccountToken
    }
}
