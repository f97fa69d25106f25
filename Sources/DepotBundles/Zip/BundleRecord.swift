/// A stored bundle: its SHA-256 digest (lowercase hex; also its name, URL and strong ETag) and size.
package struct BundleRecord: Sendable, Equatable, Codable {
    /// Lowercase hex SHA-256 of the bundle's bytes.
    package var digest: String
    /// The bundle's size in bytes.
    package var size: Int64

    /// A record of a bundle with this digest and size.
    package init(digest: String, size: Int64) {
        self.digest = digest
        self.size = size
    }
}
