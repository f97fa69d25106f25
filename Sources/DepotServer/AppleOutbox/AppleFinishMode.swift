/// Who finishes a transaction at the App Store once Depot recorded its delivery, as the finish answer says.
enum AppleFinishMode: String, Equatable {
    /// Depot sends Finish Transaction through its outbox; the app's own `finish()` is optional and harmless.
    case server
    /// Depot does not call the App Store Server API: the app calls StoreKit's `finish()`.
    case app
    /// The transaction's environment has no App Store server (Xcode, StoreKit Testing): the app calls `finish()`.
    case notApplicable = "not-applicable"

    /// The mode for a transaction of `environment` under these settings (nil: the API is not configured).
    init(settings: AppStoreServerAPISettings?, environment: String) {
        guard let settings else {
            self = .app
            return
        }
        self = settings.sends(environment: environment) ? .server : .notApplicable
    }

    /// The mode as a sentence.
    var detail: String {
        switch self {
        case .server:
            "Depot finishes this transaction at the App Store itself (Finish Transaction); calling StoreKit's finish() as well is harmless."
        case .app:
            "Depot does not call the App Store Server API; call StoreKit's finish() now that the content is delivered."
        case .notApplicable:
            "Transactions of this environment are not sent to the App Store Server API; call StoreKit's finish() now."
        }
    }
}
