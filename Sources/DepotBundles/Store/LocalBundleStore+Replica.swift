import DepotCore
import DepotSystem
import Foundation

extension LocalBundleStore {
    /// Whether bundles are shared with other instances through a replica.
    package var sharesBundles: Bool { replica != nil }

    /// Sends a bundle this store holds to the replica, once per store instance; without a replica, nothing.
    func replicate(_ record: BundleRecord) async throws {
        guard let replica, await replication.needsUpload(record.digest) else { return }
        let path = layout.bundlePath(for: record.digest)
        do {
            try await replica.upload(record.digest, path: path)
        } catch {
            throw BundleStoreError(.replica, "the bundle \(record.digest) could not be stored in the replica: \(error)")
        }
        await replication.uploaded(record.digest)
    }

    /// The local path of a bundle, fetched from the replica first when this store lacks it: nil when neither holds it.
    /// Concurrent calls for one digest share one fetch. A fetched file whose SHA-256 is not its digest, or that is
    /// longer than `size` (the size the ledger recorded, when known), is dropped and refused.
    package func fetch(_ digest: BundleDigest, size: Int64? = nil) async throws -> String? {
        if let path = path(for: digest) { return path }
        guard let replica else { return nil }
        let layout = layout
        let fetched = try await replication.fetch(digest) {
            let temporary = layout.temporaryPath()
            guard try await replica.download(digest, to: temporary, maxBytes: size ?? .max) else { return false }
            try await Self.runBlocking {
                let size = try Self.verify(temporary, digest: digest)
                _ = chmod(temporary, 0o444)  // stored bundles are read-only: they never change
                do throws(SystemCallError) {
                    try layout.place(temporary, as: BundleRecord(digest: digest, size: size))
                } catch {
                    POSIX.unlinkFile(temporary)
                    throw BundleStoreError("storing a fetched bundle", error)
                }
            }
            return true
        }
        return fetched ? path(for: digest) : nil
    }

    /// The file's size when its SHA-256 is `digest`; otherwise the file is removed and the fetch refused.
    private static func verify(_ path: String, digest: BundleDigest) throws -> Int64 {
        let hex: String
        let size: Int64
        do {
            hex = try FileSHA256.hex(path: path)
            size = try FileStatus.lstat(path).size
        } catch {
            POSIX.unlinkFile(path)
            throw BundleStoreError(.io, "reading a fetched bundle: \(error)")
        }
        guard hex == digest.hex else {
            POSIX.unlinkFile(path)
            throw BundleStoreError(.replica, "the replica's copy of bundle \(digest) does not hash to its digest; it was dropped")
        }
        return size
    }
}

/// What a store knows of its replica: the bundles it sent there, and the fetches running.
actor BundleReplication {
    private var uploadedDigests: Set<BundleDigest> = []
    private var fetches: [BundleDigest: Task<Bool, any Error>] = [:]

    /// Whether `digest` may still need sending.
    func needsUpload(_ digest: BundleDigest) -> Bool { !uploadedDigests.contains(digest) }

    /// Notes that `digest` is in the replica.
    func uploaded(_ digest: BundleDigest) { uploadedDigests.insert(digest) }

    /// Runs `work` for `digest`, or joins the run already going.
    func fetch(_ digest: BundleDigest, _ work: @escaping @Sendable () async throws -> Bool) async throws -> Bool {
        if let running = fetches[digest] { return try await running.value }
        let task = Task { try await work() }
        fetches[digest] = task
        let result = await task.result
        fetches[digest] = nil
        if (try? result.get()) == true { uploadedDigests.insert(digest) }
        return try result.get()
    }
}
