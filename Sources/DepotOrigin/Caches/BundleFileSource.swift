import DepotCore

/// Where the byte path gets bundle files when not every bundle is on this disk (an object store holds them, and the
/// local disk keeps a bounded cache): a file is held while an answer sends it, and one that is missing is brought in
/// before the answer.
package protocol BundleFileSource: Sendable {
    /// Whether the local file of `digest` is on this disk.
    func holdsFile(_ digest: BundleDigest) -> Bool
    /// Notes an answer starting to send the file of `digest` (it stays until ``releaseFile(_:)``); false when the
    /// source no longer holds it.
    @discardableResult func retainFile(_ digest: BundleDigest) -> Bool
    /// Notes an answer done sending the file of `digest`.
    func releaseFile(_ digest: BundleDigest)
    /// Notes that a file the source holds could not be opened: it is gone.
    func forgetFile(_ digest: BundleDigest)
    /// Keeps the file of `digest` for a request that will send it, from before it is brought in until
    /// ``unreserveFile(_:)``: however many requests wait for one fetch, none finds the file removed before it opens it.
    func reserveFile(_ digest: BundleDigest)
    /// Notes that a request ``reserveFile(_:)`` named no longer waits for the file (it opened it, or gave up).
    func unreserveFile(_ digest: BundleDigest)
    /// Brings the bundle `digest` (`size` bytes) to this disk; concurrent calls for one digest share one fetch.
    func bringIn(_ digest: BundleDigest, size: Int64) async throws
    /// Asks `action` to be told the digests of files removed from this disk, so descriptors open on them are closed.
    func whenFilesEvicted(_ action: @escaping @Sendable ([BundleDigest]) -> Void)
}
