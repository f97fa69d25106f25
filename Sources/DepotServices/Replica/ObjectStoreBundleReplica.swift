import DepotBundles
import DepotCore
import DepotObjectStore
import DepotSystem

/// Bundles shared through an S3-compatible bucket: each under `bundles/<digest>.zip` (below the settings' prefix),
/// written once (a conditional write; the second writer finds it there) and read whole into a local file. A copy an
/// instance could not fetch whole (missing, or not hashing to its digest) is reported by an empty object
/// `unfetchable/<digest>`, which the instance that replaces the copy deletes.
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

    /// The object key of the report that a bundle's copy could not be fetched whole.
    package static let reportPrefix = "unfetchable/"

    /// Asks the bucket first (HEAD), every time: a copy there of the file's size is kept; a missing one is written
    /// conditionally; one of another size is damaged and replaced.
    package func upload(_ digest: BundleDigest, path: String) async throws {
        let start = ContinuousClock.now
        let size = try FileStatus.lstat(path).size
        do throws(ObjectStoreError) {
            let found = try await client.head(Self.key(digest))
            if found?.size == size {
                record("upload", "present", bytes: 0, since: start)
                return
            }
            let written: Bool
            if found == nil {
                written = try await client.uploadFileIfAbsent(Self.key(digest), path: path, contentType: "application/zip")
            } else {
                try await client.replaceFile(Self.key(digest), path: path, contentType: "application/zip")
                written = true
            }
            record("upload", written ? (found == nil ? "written" : "replaced") : "present", bytes: written ? size : 0, since: start)
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

    package func replace(_ digest: BundleDigest, path: String) async throws {
        let start = ContinuousClock.now
        do throws(ObjectStoreError) {
            try await client.replaceFile(Self.key(digest), path: path, contentType: "application/zip")
            record("upload", "replaced", bytes: (try? FileStatus.lstat(path))?.size ?? 0, since: start)
        } catch {
            record("upload", error.code ?? "failed", bytes: 0, since: start)
            throw error
        }
        try await client.delete(Self.reportPrefix + digest.hex)
    }

    package func report(_ digest: BundleDigest) async throws {
        try await client.put(Self.reportPrefix + digest.hex, bytes: [])
    }

    package func reported() async throws -> [BundleDigest] {
        try await client.listAll(prefix: Self.reportPrefix).compactMap {
            BundleDigest(hex: $0.key.dropFirst(Self.reportPrefix.count))
        }
    }

    private func record(_ operation: String, _ outcome: String, bytes: Int64, since start: ContinuousClock.Instant) {
        recorder?.objectStoreCall(operation: operation, outcome: outcome, bytes: bytes, duration: ContinuousClock.now - start)
    }
}
