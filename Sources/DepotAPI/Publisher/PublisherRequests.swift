/// `PUT /v1/publisher/products/{productId}`'s body. Fields are read loosely and validated one by one, so
/// each mistake gets its own error code.
public struct ProductRequest: Codable, Sendable {
    /// `consumable`, `nonConsumable`, `nonRenewing` or `autoRenewable`.
    public var type: String?
    /// The product's name as publishers see it.
    public var title: String?
    /// The period a `nonRenewing` or `autoRenewable` purchase entitles, in days.
    public var periodDays: Int?

    /// A product request.
    public init(type: String? = nil, title: String? = nil, periodDays: Int? = nil) {
        self.type = type
        self.title = title
        self.periodDays = periodDays
    }
}

/// `POST /v1/publisher/products/{productId}/versions`'s body.
public struct VersionRequest: Codable, Sendable {
    /// The finished upload (its tus id) holding the pack archive.
    public var upload: String?
    /// The version's name: 1-64 printable characters without spaces or '/', not starting with '.'.
    public var version: String?
    /// The upload's SHA-256 as 64 hex digits.
    public var sha256: String?
    /// The content the version belongs to, when the request names one.
    public var contentId: String?
    /// When buyers are offered the version from, as an ISO 8601 UTC time (`2026-03-01T09:00:00Z`).
    public var publishedAt: String?

    /// A version request.
    public init(
        upload: String? = nil, version: String? = nil, sha256: String? = nil, contentId: String? = nil,
        publishedAt: String? = nil
    ) {
        self.upload = upload
        self.version = version
        self.sha256 = sha256
        self.contentId = contentId
        self.publishedAt = publishedAt
    }
}
