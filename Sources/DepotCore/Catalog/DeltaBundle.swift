/// A bundle holding only what changed in a content between an older version and a newer one, so an app
/// that has the older version downloads less. Served like any bundle, by its digest.
public struct DeltaBundle: Sendable, Equatable, Codable {
    /// The product the content belongs to.
    public var productId: String
    /// The content.
    public var contentId: String
    /// The version the delta applies over.
    public var baseVersion: String
    /// The version the delta produces.
    public var targetVersion: String
    /// Lowercase hex SHA-256 of the delta bundle.
    public var digest: BundleDigest
    /// Size of the delta bundle in bytes.
    public var size: Int64

    /// Creates a delta entry.
    public init(productId: String, contentId: String, baseVersion: String, targetVersion: String, digest: BundleDigest, size: Int64) {
        self.productId = productId
        self.contentId = contentId
        self.baseVersion = baseVersion
        self.targetVersion = targetVersion
        self.digest = digest
        self.size = size
    }
}
