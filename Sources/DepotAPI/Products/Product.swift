/// A product as `GET /v1/products` lists it.
public struct Product: Sendable, Equatable, Codable {
    /// One content of the product at its current version.
    public struct Content: Sendable, Equatable, Codable {
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

        /// A content at its version.
        public init(id: String, version: String, size: Int64, digest: String, publishedAt: String) {
            self.id = id
            self.version = version
            self.size = size
            self.digest = digest
            self.publishedAt = publishedAt
        }
    }

    /// The product identifier, as in App Store Connect.
    public var id: String
    /// `consumable`, `nonConsumable`, `autoRenewable`, `nonRenewing` or `freeSubscription`.
    public var type: String
    /// The title.
    public var title: String
    /// The contents the product delivers.
    public var contents: [Content]

    /// A listed product.
    public init(id: String, type: String, title: String, contents: [Content]) {
        self.id = id
        self.type = type
        self.title = title
        self.contents = contents
    }
}

/// The body of `GET /v1/products`.
public struct ProductList: Sendable, Equatable, Codable {
    /// Every product sold, in the catalog's order.
    public var products: [Product]

    /// A product list.
    public init(products: [Product]) {
        self.products = products
    }
}
