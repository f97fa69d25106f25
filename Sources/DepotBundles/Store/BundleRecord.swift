/// A stored bundle: its SHA-256 digest (lowercase hex; also its name, URL and strong ETag) and size.
package struct BundleRecord: Sendable, Equatable, Codable {
    package var digest: String
    package var size: Int64

    package init(digest: String, size: Int64) {
        self.digest = digest
        self.size = size
    }
}
