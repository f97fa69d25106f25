import DepotCore

/// A stored bundle: its SHA-256 digest (also its name, URL and strong ETag) and size.
package struct BundleRecord: Sendable, Equatable, Codable {
    /// SHA-256 of the bundle's bytes.
    package var digest: BundleDigest
    /// The bundle's size in bytes.
    package var size: Int64

    /// A record of a bundle with this digest and size.
    package init(digest: BundleDigest, size: Int64) {
        self.digest = digest
        self.size = size
    }
}
