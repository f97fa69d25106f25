/// A product as the publisher routes answer it.
public struct PublisherProductBody: Codable, Sendable {
    /// The product's id.
    public var id: String
    /// Its type (`ProductRequest.type`).
    public var type: String
    /// Its title.
    public var title: String
    /// The period a purchase entitles, in days, for subscriptions.
    public var periodDays: Int?
    /// Its versions and version jobs.
    public var versions: [PublisherVersionBody]

    /// A product as answered.
    public init(id: String, type: String, title: String, periodDays: Int? = nil, versions: [PublisherVersionBody]) {
        self.id = id
        self.type = type
        self.title = title
        self.periodDays = periodDays
        self.versions = versions
    }
}

/// `GET|PUT /v1/publisher/products/{productId}`.
public struct PublisherProductEnvelope: Codable, Sendable {
    /// The product.
    public var product: PublisherProductBody

    /// The answer for `product`.
    public init(product: PublisherProductBody) { self.product = product }
}

/// `GET .../versions`.
public struct PublisherVersionsBody: Codable, Sendable {
    /// The product's versions and version jobs.
    public var versions: [PublisherVersionBody]

    /// The answer for `versions`.
    public init(versions: [PublisherVersionBody]) { self.versions = versions }
}

/// `POST /v1/publisher/products/{productId}/versions`'s answer (202): the job, to follow in the list.
public struct VersionJobEnvelope: Codable, Sendable {
    /// The version job.
    public var version: PublisherVersionBody

    /// The answer for the job `version`.
    public init(version: PublisherVersionBody) { self.version = version }
}

/// `POST .../versions/{version}/publish`.
public struct PublishBody: Codable, Sendable {
    /// The version as it stands after the publish.
    public var version: PublisherVersionBody
    /// Whether the publish went back to an older version.
    public var rollback: Bool
    /// False when it already was the only published version.
    public var changed: Bool

    /// The answer for a publish.
    public init(version: PublisherVersionBody, rollback: Bool, changed: Bool) {
        self.version = version
        self.rollback = rollback
        self.changed = changed
    }
}
