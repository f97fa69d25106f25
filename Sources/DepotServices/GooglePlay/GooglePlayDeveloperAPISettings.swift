import DepotGooglePlay

/// `googlePlay.developerAPI` in `depot.json`: how Depot calls the Google Play Developer API itself. Absent, the
/// app acknowledges its purchases with Play Billing and refunds are learnt of only from what apps present.
package struct GooglePlayDeveloperAPISettings: Sendable {
    /// The service account Depot signs in as (its key file, read and checked at start).
    package var account: GooglePlayServiceAccount
    /// Where the key file is.
    package var serviceAccountKeyPath: String
    /// The API's base URL (Google's, or a local double's).
    package var baseURL: String
    /// The token endpoint, when it is not the key file's `token_uri`.
    package var tokenURL: String?
    /// Seconds each call may take.
    package var timeoutSeconds: Int64
    /// How the outbox sends and retries acknowledgements (the same worker as the App Store's calls).
    package var outbox: StoreOutboxSettings
    /// How the voided purchases list is polled.
    package var voidedPurchases: VoidedPurchasePollSettings
    /// Whether the customer could try the content before buying (`sampleContentProvided` in answers to refund
    /// reviews).
    package var sampleContentProvided = false

    /// Settings as `depot.json` gives them (checked by the configuration loader).
    package init(
        account: GooglePlayServiceAccount, serviceAccountKeyPath: String, baseURL: String, tokenURL: String?,
        timeoutSeconds: Int64, outbox: StoreOutboxSettings, voidedPurchases: VoidedPurchasePollSettings
    ) {
        self.account = account
        self.serviceAccountKeyPath = serviceAccountKeyPath
        self.baseURL = baseURL
        self.tokenURL = tokenURL
        self.timeoutSeconds = timeoutSeconds
        self.outbox = outbox
        self.voidedPurchases = voidedPurchases
    }

    /// The longest a request (a redeem, a restore) waits for one Google call before the offline judgement applies,
    /// when `timeoutSeconds` is longer: the app's request must not wait as long as the outbox may.
    package static let requestPathTimeoutSeconds: Int64 = 5

    /// Clients for the app `packageName` under these settings, sharing one access token: `background` for the outbox
    /// and the polls, and `requestPath` for the calls a request waits on (a subscription's current period, a purchase's
    /// type), each of which gives up after `requestPathTimeoutSeconds` at most.
    package func clients(
        packageName: String
    ) throws(GooglePlayAPIError) -> (background: GooglePlayDeveloperAPIClient, requestPath: GooglePlayDeveloperAPIClient) {
        let tokens = try GooglePlayAccessTokens(account: account, tokenURL: tokenURL, timeoutSeconds: timeoutSeconds)
        return (
            GooglePlayDeveloperAPIClient(packageName: packageName, tokens: tokens, baseURL: baseURL, timeoutSeconds: timeoutSeconds),
            GooglePlayDeveloperAPIClient(
                packageName: packageName, tokens: tokens, baseURL: baseURL,
                timeoutSeconds: min(timeoutSeconds, Self.requestPathTimeoutSeconds))
        )
    }
}

/// Polling `purchases.voidedpurchases.list`, so that a refund or chargeback revokes even when no notification
/// reached Depot.
package struct VoidedPurchasePollSettings: Sendable {
    /// Seconds between two polls (the first runs at start); 0 turns polling off.
    package var intervalSeconds: Int64
    /// How far before the end of the previous poll's window the next one starts.
    package var overlapSeconds: Int64
    /// How far back the first poll looks (Google keeps 30 days).
    package var lookbackSeconds: Int64

    /// Poll settings.
    package init(intervalSeconds: Int64, overlapSeconds: Int64, lookbackSeconds: Int64) {
        self.intervalSeconds = intervalSeconds
        self.overlapSeconds = overlapSeconds
        self.lookbackSeconds = lookbackSeconds
    }
}
