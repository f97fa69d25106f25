/// The `appStoreServerAPI` section of `depot.json`: how Depot calls the App Store Server API itself. Absent,
/// Depot never calls Apple and the app finishes its transactions with StoreKit.
package struct AppStoreServerAPISettings: Sendable {
    /// The issuer id from App Store Connect (Users and Access, Integrations, In-App Purchase).
    package var issuerId: String
    /// The in-app purchase key's id.
    package var keyId: String
    /// Where the key's `.p8` file is (resolved against the configuration directory).
    package var privateKeyPath: String
    /// The key's PEM text, read and checked when the configuration is loaded.
    package var privateKeyPEM: String
    /// The app's bundle id, the tokens' `bid` claim.
    package var bundleId: String
    /// Base URL per App Store environment; a transaction of an environment not listed is never sent to Apple.
    package var baseURLs: [String: String]
    /// Seconds each call may take.
    package var timeoutSeconds: Int64
    /// How the outbox sends and retries.
    package var outbox: StoreOutboxSettings
    /// Whether the customer could try the content before buying (`sampleContentProvided` in consumption answers).
    package var sampleContentProvided: Bool = false
    /// How missed notifications are recovered from the App Store's notification history.
    package var notificationHistory: NotificationHistorySettings

    /// Settings as `depot.json` gives them (checked by the configuration loader).
    package init(
        issuerId: String, keyId: String, privateKeyPath: String, privateKeyPEM: String, bundleId: String,
        baseURLs: [String: String], timeoutSeconds: Int64, outbox: StoreOutboxSettings,
        notificationHistory: NotificationHistorySettings
    ) {
        self.issuerId = issuerId
        self.keyId = keyId
        self.privateKeyPath = privateKeyPath
        self.privateKeyPEM = privateKeyPEM
        self.bundleId = bundleId
        self.baseURLs = baseURLs
        self.timeoutSeconds = timeoutSeconds
        self.outbox = outbox
        self.notificationHistory = notificationHistory
    }

    /// Whether transactions of `environment` are sent to the App Store Server API.
    package func sends(environment: String) -> Bool { baseURLs[environment] != nil }
}

/// Recovering missed notifications with Get Notification History.
package struct NotificationHistorySettings: Sendable {
    /// Seconds between two backfills (the first runs at start); 0 turns the backfill off.
    package var intervalSeconds: Int64
    /// How far before the last recorded notification (or the previous backfill) a window starts.
    package var overlapSeconds: Int64
    /// How far back the first backfill looks when the ledger has recorded no notification yet.
    package var lookbackSeconds: Int64

    /// Backfill settings.
    package init(intervalSeconds: Int64, overlapSeconds: Int64, lookbackSeconds: Int64) {
        self.intervalSeconds = intervalSeconds
        self.overlapSeconds = overlapSeconds
        self.lookbackSeconds = lookbackSeconds
    }
}
