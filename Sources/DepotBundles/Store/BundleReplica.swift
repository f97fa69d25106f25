import DepotCore

/// The shared home of bundles when instances share no directory (an object store): every bundle an instance builds
/// is sent there before the ledger names it, and an instance serving a bundle it did not build fetches it from there.
/// Keys are content-addressed, so any instance may write a bundle and the second writer finds it there.
package protocol BundleReplica: Sendable {
    /// Stores the bundle file at `path`, whose digest is `digest`, unless the replica holds it already.
    func upload(_ digest: BundleDigest, path: String) async throws
    /// Writes the bundle `digest` into a new file at `path`; false (and no file) when the replica does not hold it. A
    /// copy longer than `maxBytes` is refused as it arrives.
    func download(_ digest: BundleDigest, to path: String, maxBytes: Int64) async throws -> Bool
}
