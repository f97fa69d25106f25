/// One published version of one content (a product's pack, or one issue of a subscription) and its bundle.
public struct ContentVersion: Sendable, Equatable, Codable {
    /// The product this content belongs to.
    public var productId: String
    /// The content identifier: the product id itself, or the id for a subscription.
    public var contentId: String
    /// The publisher's version string, e.g. `1.1`.
    public var version: String
    /// Publication time in seconds since 1970 (UTC); the bundle's Last-Modified.
    public var publishedAt: Int64
    /// SHA-256 of the bundle bytes: the bundle's name, URL and strong ETag.
    public var digest: BundleDigest
    /// Size of the bundle in bytes.
    public var size: Int64
    /// Total size of the unpacked files in bytes.
    public var unpackedSize: Int64

    /// Creates a content version.
    public init(
        productId: String, contentId: String, version: String, publishedAt: Int64,
        digest: BundleDigest, size: Int64, unpackedSize: Int64
    ) {
        self.productId = productId
        self.contentId = contentId
        self.version = version
        self.publishedAt = publishedAt
        self.digest = digest
        self.size = size
        self.unpackedSize = unpackedSize
    }
}
