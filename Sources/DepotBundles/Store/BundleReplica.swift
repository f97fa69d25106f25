import DepotCore

/// The shared home of bundles when instances share no directory (an object store): every bundle an instance builds
/// is sent there before the ledger names it, and an instance serving a bundle it did not build fetches it from there.
/// Keys are content-addressed, so any instance may write a bundle and the second writer finds it there.
///
/// A copy there may go missing (collected, lost) or be damaged (its bytes do not hash to its digest): an instance that
/// cannot fetch a copy whole reports it, and an instance holding a good copy replaces it (see
/// `LocalBundleStore.repairReported()`).
package protocol BundleReplica: Sendable {
    /// Stores the bundle file at `path`, whose digest is `digest`, unless the replica holds it already; asked each time,
    /// never answered from memory, since what was there may have been collected since.
    func upload(_ digest: BundleDigest, path: String) async throws
    /// Writes the bundle `digest` into a new file at `path`; false (and no file) when the replica does not hold it. A
    /// copy longer than `maxBytes` is refused as it arrives.
    func download(_ digest: BundleDigest, to path: String, maxBytes: Int64) async throws -> Bool
    /// Stores the bundle file at `path` (checked against `digest`) whatever the replica holds under `digest`, and
    /// withdraws the report of it.
    func replace(_ digest: BundleDigest, path: String) async throws
    /// Notes, for the instances holding a good copy, that the replica's copy of `digest` is missing or damaged.
    func report(_ digest: BundleDigest) async throws
    /// The digests whose copies were reported missing or damaged and not replaced since.
    func reported() async throws -> [BundleDigest]
}

extension BundleReplica {
    /// Without reports, a replacement is an upload.
    package func replace(_ digest: BundleDigest, path: String) async throws {
        try await upload(digest, path: path)
    }

    /// Without reports, nothing is noted.
    package func report(_ digest: BundleDigest) async throws {}

    /// Without reports, none.
    package func reported() async throws -> [BundleDigest] { [] }
}
