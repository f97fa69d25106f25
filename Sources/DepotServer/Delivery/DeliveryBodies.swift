/// `POST /v1/transactions` body.
struct RedeemRequest: Decodable {
    /// What the app says it already has installed, so a download can be a delta.
    struct Installed: Decodable {
        var contentId: String
        var version: String
    }
    var signedTransaction: String
    var installed: [Installed]?
    /// The app's own account identity (a UUID, as StoreKit's `appAccountToken`): who is redeeming, which the
    /// signed transaction cannot say, since its token is fixed at purchase.
    var appAccountToken: String?
}

/// `POST /v1/transactions/{id}/finish` body.
struct FinishRequest: Decodable {
    struct Delivered: Decodable {
        var contentId: String
        var digest: String
    }
    /// The redeem answer's `transaction.finishToken`: proof that the caller is the one that redeemed.
    var finishToken: String?
    var delivered: [Delivered]
}

/// `POST /v1/restore` body.
struct RestoreRequest: Decodable {
    var signedTransactions: [String]
    /// The app's own account identity, as in `RedeemRequest`.
    var appAccountToken: String?
}

/// `POST /v1/notifications/appstore` body.
struct NotificationRequest: Decodable {
    var signedPayload: String
}

/// The transaction as the contract shows it.
struct TransactionBody: Encodable, Sendable {
    var id: String
    var originalId: String
    var productId: String
    var state: String
    /// Proof for `finish`; only in the answer to the one that redeemed (redeem and restore).
    var finishToken: String?
}

/// One download the answer offers.
struct DownloadBody: Encodable, Sendable {
    var contentId: String
    var version: String
    var size: Int64
    var digest: String
    var url: String
    var grantExpiresAt: String
    /// For a delta, the version it applies over.
    var baseVersion: String?
}

/// The answer to a redemption.
struct RedeemBody: Encodable, Sendable {
    var transaction: TransactionBody
    var downloads: [DownloadBody]
}

/// The answer to a finish.
struct FinishBody: Encodable, Sendable {
    var transaction: TransactionBody
    /// True once the app may call StoreKit's finish.
    var finishStoreKitTransaction: Bool
    /// Who finishes the transaction at the App Store: `server` (Depot, through its outbox; the app's own
    /// `finish()` is then optional and harmless), `app` (Depot does not call Apple: the app must call
    /// `finish()`), `not-applicable` (the transaction's environment has no App Store server: the app calls
    /// `finish()` as ever).
    var appleFinish: String
    /// The same, as a sentence for people.
    var appleFinishDetail: String
}

/// The answer to a restore.
struct RestoreBody: Encodable, Sendable {
    var transactions: [TransactionBody]
    var downloads: [DownloadBody]
}
