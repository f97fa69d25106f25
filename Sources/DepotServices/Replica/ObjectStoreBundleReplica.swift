import DepotBundles
import DepotCore
import DepotObjectStore
import DepotSystem

/// Bundles shared through an S3-compatible bucket: each under `bundles/<digest>.zip` (below the settings' prefix),
/// written once (a conditional write; the second writer finds it there) and read whole into a local file.
package struct ObjectStoreBundleReplica: BundleReplica {
    let client: ObjectStoreClient
    let recorder: (any ObjectStoreRecorder)?

    /// Bundles in `client`'s bucket; each call is counted in `recorder`, when given.
    package init(client: ObjectStoreClient, recorder: (any ObjectStoreRecorder)? = nil) {
        self.client = client
        self.recorder = recorder
    }

    /// The object key of a bundle.
    package static func key(_ digest: BundleDigest) -> String {
        "bundles/\(digest.hex).zip"
    }

    package func upload(_ digest: BundleDigest, path: String) async throws {
        let start = ContinuousClock.now
        do {
            let written = try await client.uploadFileIfAbsent(Self.key(digest), path: path, contentType: "application/zip")
            let size = written ? ((try? FileStatus.lstat(path))?.size ?? 0) : 0
            record("upload", written ? "written" : "present", bytes: size, since: start)
        } catch {
            record("upload", error.code ?? "failed", bytes: 0, since: start)
            throw error
        }
    }

    package func download(_ digest: BundleDigest, to path: String, maxBytes: Int64) async throws -> Bool {
        let start = ContinuousClock.now
        do {
            let size = try await client.downloadFile(Self.key(digest), to: path, maxBytes: maxBytes)
            record("download", size == nil ? "absent" : "fetched", bytes: size ?? 0, since: start)
            return size != nil
        } catch {
            record("download", error.code ?? "failed", bytes: 0, since: start)
            throw error
        }
    }

    private func record(_ operation: String, _ outcome: String, bytes: Int64, since start: ContinuousClock.Instant) {
        recorder?.objectStoreCall(operation: operation, outcome: outcome, bytes: bytes, duration: ContinuousClock.now - start)
    }
}
