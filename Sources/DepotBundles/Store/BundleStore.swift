import DepotCore

/// Where bundles live, by digest. The local directory is the default; an object store can take its place.
package protocol BundleStore: Sendable {
    /// The local path of the bundle with this digest, or `nil` when the store does not hold it.
    func path(for digest: BundleDigest) -> String?

    /// Builds `pack`'s bundle (or finds it already built) and returns its digest and size.
    func build(_ pack: Pack, compressionLevel: Int) async throws -> BundleRecord
}
