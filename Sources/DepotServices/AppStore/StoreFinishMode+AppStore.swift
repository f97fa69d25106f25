extension StoreFinishMode {
    /// Who finishes a transaction of `environment` at the App Store under these settings (nil: the App Store
    /// Server API is not configured, so the app does).
    package init(settings: AppStoreServerAPISettings?, environment: String) {
        guard let settings else {
            self = .app
            return
        }
        self = settings.sends(environment: environment) ? .server : .notApplicable
    }

    /// The mode as a sentence for an App Store transaction.
    package var detail: String {
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
