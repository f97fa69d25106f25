/// Transactions flagged for irregular activity (`GET /v1/admin/irregular`).
public struct IrregularBody: Codable, Sendable {
    /// One flagged transaction.
    public struct Entry: Codable, Sendable {
        /// The transaction.
        public var transactionId: String
        /// Distinct app account tokens that presented it within the window.
        public var appAccountTokens: Int
        /// Distinct client addresses that presented it within the window.
        public var clientAddresses: Int
        /// When it was last presented.
        public var lastAttemptAt: String

        /// A flagged transaction as reported.
        public init(transactionId: String, appAccountTokens: Int, clientAddresses: Int, lastAttemptAt: String) {
            self.transactionId = transactionId
            self.appAccountTokens = appAccountTokens
            self.clientAddresses = clientAddresses
            self.lastAttemptAt = lastAttemptAt
        }
    }
    /// The window the counts cover, in seconds.
    public var windowSeconds: Int64
    /// The flagged transactions of this page.
    public var transactions: [Entry]
    /// The next page (`?cursor=`), when there is one.
    public var nextCursor: String?

    /// A page of flagged transactions.
    public init(windowSeconds: Int64, transactions: [Entry], nextCursor: String? = nil) {
        self.windowSeconds = windowSeconds
        self.transactions = transactions
        self.nextCursor = nextCursor
    }
}
