/// What is known of one transaction (`GET /v1/admin/transactions/{id}`).
public struct TransactionReportBody: Codable, Sendable {
    /// One entry of the transaction's audit trail.
    public struct Audit: Codable, Sendable {
        /// When it happened (ISO 8601 UTC).
        public var at: String
        /// What happened.
        public var event: String
        /// The details.
        public var detail: String

        /// An audit entry as reported.
        public init(at: String, event: String, detail: String) {
            self.at = at
            self.event = event
            self.detail = detail
        }
    }
    /// The transaction.
    public var transaction: RedeemedTransaction
    /// Whether the store revoked it.
    public var revoked: Bool
    /// Its deliveries.
    public var deliveries: [DeliveryReportBody]
    /// What Depot can state about whether the content reached the customer: `confirmed`, `served-unconfirmed`
    /// or `not-delivered`.
    public var evidence: String
    /// That evidence in the App Store's terms: `DELIVERED` or `UNDELIVERED_OTHER`.
    public var deliveryStatus: String
    /// One page of the audit trail, oldest first.
    public var audit: [Audit]
    /// The App Store Server API calls made or to be made for it (Finish Transaction), oldest first.
    public var appleJobs: [AppleJobBody]
    /// Continues the audit trail (`?cursor=`), when it is longer than this page.
    public var nextCursor: String?

    /// A transaction as reported.
    public init(
        transaction: RedeemedTransaction, revoked: Bool, deliveries: [DeliveryReportBody], evidence: String,
        deliveryStatus: String, audit: [Audit], appleJobs: [AppleJobBody], nextCursor: String? = nil
    ) {
        self.transaction = transaction
        self.revoked = revoked
        self.deliveries = deliveries
        self.evidence = evidence
        self.deliveryStatus = deliveryStatus
        self.audit = audit
        self.appleJobs = appleJobs
        self.nextCursor = nextCursor
    }
}
