import DepotCore
import DepotSystem
import Foundation

extension LocalBundleStore {
    /// Whether bundles are shared with other instances through a replica.
    package var sharesBundles: Bool { replica != nil }

    /// Sends a bundle this store holds to the replica unless the replica holds it now (asked each time: a copy sent
    /// earlier, by this instance or another, may have been collected since, so nothing is remembered); without a
    /// replica, nothing. A version is recorded only after this returns, so only once its bundle is in the replica
    /// (unless `policy` is ``ReplicaFailurePolicy/sendLater``: then a failure keeps the bundle for a later send).
    func replicate(_ record: BundleRecord, policy: ReplicaFailurePolicy) async throws {
        guard let replica else { return }
        let path = layout.bundlePath(for: record.digest)
        switch policy {
        case .fail:
            do {
                try await replica.upload(record.digest, path: path)
            } catch {
                throw BundleStoreError(.replica, "the bundle \(record.digest) could not be stored in the replica: \(error)")
            }
        case .sendLater:
            if await Self.upload(record.digest, path: path, to: replica, within: Self.sendLaterBound) != nil {
                keepUnsent(record.digest)
            }
        case .holdForLater:
            keepUnsent(record.digest)
        }
    }

    /// Replaces the replica's copy of each reported bundle this store holds a good copy of (its file hashes to its
    /// digest), among `wanted` (the bundles the catalog names; nil: any). A report of a bundle this store lacks is left
    /// for an instance that holds it. Throws when the reports cannot be read; one bundle's failure is returned with
    /// its reason and does not stop the others.
    package func repairReported(wanted: Set<BundleDigest>? = nil) async throws -> ReplicaRepairs {
        var repairs = ReplicaRepairs()
        guard let replica else { return repairs }
        for digest in try await replica.reported() where wanted?.contains(digest) ?? true {
            guard let path = path(for: digest) else { continue }
            do {
                // This disk's copy is checked again before it replaces anything: a damaged copy is never spread.
                guard try await Self.runBlocking({ try FileSHA256.hex(path: path) }) == digest.hex else {
                    repairs.failed[digest] = "this instance's copy does not hash to its digest either"
                    continue
                }
                try await replica.replace(digest, path: path)
                repairs.replaced.append(digest)
            } catch {
                repairs.failed[digest] = "\(error)"
            }
        }
        return repairs
    }

    /// The local path of a bundle, fetched from the replica first when this store lacks it: nil when neither holds it.
    /// Concurrent calls for one digest share one fetch. A fetched file whose SHA-256 is not its digest, or that is
    /// longer than `size` (the size the ledger recorded, when known), is dropped and refused.
    package func fetch(_ digest: BundleDigest, size: Int64? = nil) async throws -> String? {
        try await fetch(digest, size: size, forRequest: false)
    }

    private func fetch(_ digest: BundleDigest, size: Int64?, forRequest: Bool) async throws -> String? {
        // With a cache, a file on the disk is only served once the cache counts it (a fetch places the file, syncs
        // its directory, then counts it): a request in between joins the fetch still running.
        if let path = path(for: digest), cache?.holds(digest) ?? true { return path }
        guard let replica else { return nil }
        let (layout, cache) = (layout, cache)
        let fetched = try await replication.fetch(digest) {
            if let placed = try? FileStatus.lstat(layout.bundlePath(for: digest)), placed.kind == .regular {
                cache?.admit(digest, size: placed.size)  // placed by a fetch that ended meanwhile
                return true
            }
            let temporary = layout.temporaryPath()
            guard try await replica.download(digest, to: temporary, maxBytes: size ?? .max) else {
                // Named by the ledger yet missing from the replica: reported for an instance holding it to send it again.
                try? await replica.report(digest)
                return false
            }
            let verified: Int64
            do {
                verified = try await Self.runBlocking { try Self.verify(temporary, digest: digest) }
            } catch let error as BundleStoreError where error.code == .replica {
                // The replica's copy is damaged: reported for an instance holding a good copy to replace it.
                try? await replica.report(digest)
                throw error
            }
            try await Self.runBlocking {
                let size = verified
                _ = chmod(temporary, 0o444)  // stored bundles are read-only: they never change
                do throws(SystemCallError) {
                    try layout.place(temporary, as: BundleRecord(digest: digest, size: size))
                } catch {
                    POSIX.unlinkFile(temporary)
                    throw BundleStoreError("storing a fetched bundle", error)
                }
                // Counted as soon as it is in place: a request finding it there finds the cache holding it.
                cache?.admit(digest, size: size, fetchedForRequest: forRequest)
            }
            return true
        }
        return fetched ? path(for: digest) : nil
    }

    /// Whether the local file of `digest` is on this disk (without a replica: whether the store holds it).
    package func holdsFile(_ digest: BundleDigest) -> Bool {
        guard let cache else { return path(for: digest) != nil }
        return cache.holds(digest)
    }

    /// Notes an answer starting to send the local file of `digest`: the cache keeps it until ``releaseFile(_:)``.
    /// False when the cache does not hold it.
    @discardableResult
    package func retainFile(_ digest: BundleDigest) -> Bool {
        cache?.retain(digest) ?? true
    }

    /// Keeps the file of `digest` for a request that will send it once it is on this disk (see ``bringIn(_:size:)``),
    /// until ``unreserveFile(_:)``.
    package func reserveFile(_ digest: BundleDigest) {
        cache?.reserve(digest)
    }

    /// Notes that the request ``reserveFile(_:)`` named no longer waits for the file.
    package func unreserveFile(_ digest: BundleDigest) {
        cache?.unreserve(digest)
    }

    /// Notes an answer done sending the file ``retainFile(_:)`` named.
    package func releaseFile(_ digest: BundleDigest) {
        cache?.release(digest)
    }

    /// Notes that the local file of `digest` turned out to be gone (another process removed it): it is fetched again
    /// when next asked for.
    package func forgetFile(_ digest: BundleDigest) {
        cache?.forget(digest)
    }

    /// Asks `action` to be told the digests of the files the local cache removes to keep within its budget, so that
    /// descriptors kept open on them are closed (an open descriptor keeps a removed file's space).
    package func whenFilesEvicted(_ action: @escaping @Sendable ([BundleDigest]) -> Void) {
        cache?.whenEvicted(action)
    }

    /// Brings the bundle `digest` (`size` bytes) to this disk for a request that asked for it, counted as a miss;
    /// throws when the replica lacks it or the fetch fails.
    package func bringIn(_ digest: BundleDigest, size: Int64) async throws {
        guard try await fetch(digest, size: size, forRequest: true) != nil else {
            throw BundleStoreError(.replica, "the bundle \(digest) is not in the object store")
        }
    }

    /// What the local cache did so far (zero without a replica).
    package var cacheCounts: BundleCacheCounts { cache?.counts ?? BundleCacheCounts() }

    /// Whether bundles are fetched when asked for rather than all kept on this disk: a replica holds them, and the
    /// local cache has a budget.
    package var fetchesOnDemand: Bool { cache?.budget != nil }

    /// Where the bundle `digest` lives on this disk while it is here.
    package func localPath(for digest: BundleDigest) -> String { layout.bundlePath(for: digest) }

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

/// What one ``LocalBundleStore/repairReported(wanted:)`` did: the copies replaced, and why others were not.
package struct ReplicaRepairs: Sendable {
    /// The bundles whose replica copy was replaced with this store's good copy.
    package var replaced: [BundleDigest] = []
    /// The bundles this store holds whose replacement failed, and why.
    package var failed: [BundleDigest: String] = [:]
}

/// What a store knows of its replica: the fetches running. Nothing is remembered of what the replica holds: another
/// instance's collector may delete a copy at any time.
actor BundleReplication {
    private var fetches: [BundleDigest: Task<Bool, any Error>] = [:]

    /// Runs `work` for `digest`, or joins the run already going.
    func fetch(_ digest: BundleDigest, _ work: @escaping @Sendable () async throws -> Bool) async throws -> Bool {
        if let running = fetches[digest] { return try await running.value }
        let task = Task { try await work() }
        fetches[digest] = task
        let result = await task.result
        fetches[digest] = nil
        return try result.get()
    }
}
