/// One delivery as operator reports show it.
public struct DeliveryReportBody: Codable, Sendable {
    /// The transaction it is of.
    public var transactionId: String
    /// The content delivered.
    public var contentId: String
    /// The content's version.
    public var version: String
    /// The bundle's digest.
    public var digest: String
    /// The bundle's size in bytes, when the bundle is known here.
    public var size: Int64?
    /// How many times grants were handed out for it.
    public var grantsIssued: Int
    /// Bytes of the bundle served at least once, merged across requests.
    public var bytesServed: Int64
    /// When the app confirmed its delivery, if it did.
    public var confirmedAt: String?
    /// The last grant or byte served.
    public var lastActivityAt: String
    /// For a Google Play purchase, when Google refunds it unless it is acknowledged.
    public var storeDeadline: String?

    /// A delivery as reported.
    public init(
        transactionId: String, contentId: String, version: String, digest: String, size: Int64? = nil,
        grantsIssued: Int, bytesServed: Int64, confirmedAt: String? = nil, lastActivityAt: String,
        storeDeadline: String? = nil
    ) {
        self.transactionId = transactionId
        self.contentId = contentId
        self.version = version
        self.digest = digest
        self.size = size
        self.grantsIssued = grantsIssued
        self.bytesServed = bytesServed
        self.confirmedAt = confirmedAt
        self.lastActivityAt = lastActivityAt
        self.storeDeadline = storeDeadline
    }
}

/// Stuck deliveries (`GET /v1/admin/deliveries/unfinished`).
public struct UnfinishedBody: Codable, Sendable {
    /// The deliveries of this page.
    public var deliveries: [DeliveryReportBody]
    /// The next page (`?cursor=`), when there is one.
    public var nextCursor: String?

    /// A page of stuck deliveries.
    public init(deliveries: [DeliveryReportBody], nextCursor: String? = nil) {
        self.deliveries = deliveries
        self.nextCursor = nextCursor
    }
}
