/// The answer to `POST /v1/transactions`: the transaction and the downloads it entitles.
public struct Redemption: Sendable, Equatable, Codable {
    /// The transaction, with its finish token.
    public var transaction: RedeemedTransaction
    /// The bundles to download.
    public var downloads: [Download]
    /// For a pre-order redeemed before its content is released, when it is (RFC 3339, UTC): the app keeps the
    /// transaction unfinished and redeems it again from then on.
    public var availableFrom: String?

    /// A redeem answer.
    public init(transaction: RedeemedTransaction, downloads: [Download], availableFrom: String? = nil) {
        self.transaction = transaction
        self.downloads = downloads
        self.availableFrom = availableFrom
    }
}

/// The answer to `POST /v1/restore`: the transactions that still entitle content, and their downloads.
public struct Restoration: Sendable, Equatable, Codable {
    /// The transactions restored, each with its finish token.
    public var transactions: [RedeemedTransaction]
    /// The bundles to download, once each.
    public var downloads: [Download]
    /// True when a restore by account left out the account's oldest transactions: it answers at most 1000, newest
    /// purchase first. Nil otherwise.
    public var accountTruncated: Bool?

    /// A restore answer.
    public init(transactions: [RedeemedTransaction], downloads: [Download]) {
        self.transactions = transactions
        self.downloads = downloads
    }
}
