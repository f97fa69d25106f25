/// A product as `GET /v1/products` lists it.
public struct Product: Sendable, Equatable, Decodable {
    /// One content of the product at its current version.
    public struct Content: Sendable, Equatable, Decodable {
        /// The content identifier.
        public var id: String
        /// The current version.
        public var version: String
        /// The bundle's size in bytes.
        public var size: Int64
        /// The bundle's sha256, lowercase hex.
        public var digest: String
        /// When the version was published (ISO 8601).
        public var publishedAt: String
    }

    /// The product identifier, as in App Store Connect.
    public var id: String
    /// `consumable`, `nonConsumable`, `autoRenewable`, `nonRenewing` or `freeSubscription`.
    public var type: String
    /// The title.
    public var title: String
    /// The contents the product delivers.
    public var contents: [Content]
}

/// The body of `GET /v1/products`.
struct ProductsBody: Decodable {
    var products: [Product]
}
