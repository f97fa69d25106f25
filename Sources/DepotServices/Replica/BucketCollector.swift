import DepotCore
import DepotLedger
import DepotObjectStore
import Logging
import ServiceLifecycle
import Synchronization

/// Deletes the bundles in the object store that no recorded version or delta refers to any more, so the bucket does
/// not only grow. One instance at a time does it: each pass first takes the ledger's lease `object-store-collection`
/// (held for three intervals, renewed by every pass of its holder; the name is a parameter for tests).
///
/// An object is deleted only when it has been found unreferenced for `graceSeconds` in a row by the lease's holder,
/// was itself last written more than `graceSeconds` ago (a bundle being staged is written before its version is
/// recorded), and is still unreferenced in a catalog read again just before the deletes. Only keys of the form
/// `bundles/<digest>.zip` are ever deleted; a failed read deletes nothing. Upload parts and unfinished multipart
/// uploads are collected in the same pass (see ``collectUploads(now:into:)``).
package final class BucketCollector: Service, Sendable {
    /// What one pass did.
    package struct Pass: Sendable, Equatable {
        /// Whether this instance held the lease (else it did nothing).
        package var held = false
        /// The digests whose objects were deleted.
        package var deleted: [BundleDigest] = []
        /// Bytes freed.
        package var bytes: Int64 = 0
        /// The keys of upload parts deleted: no live upload recorded them.
        package var uploadParts: [String] = []
        /// Multipart uploads aborted: begun longer ago than the grace period and never completed.
        package var abortedMultipartUploads = 0
    }

    /// The lease's name.
    package static let defaultLeaseName = "object-store-collection"

    let ledger: any Ledger
    let client: ObjectStoreClient
    let owner: String
    let graceSeconds: Int64
    let intervalSeconds: Int64
    let clock: @Sendable () -> Int64
    let logger: Logger
    let recorder: (any ObjectStoreRecorder)?
    let leaseName: String
    /// When each unreferenced digest was first found unreferenced by this instance.
    private let unreferencedSince = Mutex<[BundleDigest: Int64]>([:])

    /// A collector of `client`'s bundles for the lease holder `owner`.
    package init(
        ledger: any Ledger, client: ObjectStoreClient, owner: String, graceSeconds: Int64, intervalSeconds: Int64,
        clock: @escaping @Sendable () -> Int64, logger: Logger, recorder: (any ObjectStoreRecorder)? = nil,
        leaseName: String = BucketCollector.defaultLeaseName
    ) {
        self.leaseName = leaseName
        self.ledger = ledger
        self.client = client
        self.owner = owner
        self.graceSeconds = graceSeconds
        self.intervalSeconds = intervalSeconds
        self.clock = clock
        self.logger = logger
        self.recorder = recorder
    }

    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let pass = await collectOnce()
            if !pass.deleted.isEmpty || !pass.uploadParts.isEmpty || pass.abortedMultipartUploads > 0 {
                logger.info(
                    "unreferenced objects deleted from the object store",
                    metadata: [
                        "bundles": "\(pass.deleted.count)", "bytes": "\(pass.bytes)", "uploadParts": "\(pass.uploadParts.count)",
                        "multipartUploads": "\(pass.abortedMultipartUploads)",
                    ])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(max(1, self.intervalSeconds))) }
        }
    }

    /// The digest an object key names, when it is a bundle's key.
    static func digest(ofKey key: String) -> BundleDigest? {
        guard key.hasPrefix("bundles/"), key.hasSuffix(".zip") else { return nil }
        let hex = key.dropFirst("bundles/".count).dropLast(".zip".count)
        return BundleDigest(hex: String(hex))
    }

    /// One pass: takes the lease, lists the bundles, deletes those unreferenced long enough.
    package func collectOnce() async -> Pass {
        var pass = Pass()
        let now = clock()
        do {
            pass.held = try await ledger.acquireLease(leaseName, owner: owner, now: now, seconds: 3 * max(1, intervalSeconds))
        } catch {
            logger.warning("object store not collected: the ledger could not be asked for the lease", metadata: ["error": "\(error)"])
            return pass
        }
        guard pass.held else {
            unreferencedSince.withLock { $0.removeAll() }
            return pass
        }
        await collectUploads(now: now, into: &pass)
        let objects: [ObjectInfo]
        let referenced: Set<BundleDigest>
        do {
            referenced = try await Self.referenced(ledger)
            objects = try await client.listAll(prefix: "bundles/")
        } catch {
            logger.warning("object store not collected: the catalog or the bucket could not be read", metadata: ["error": "\(error)"])
            return pass
        }
        var found: [BundleDigest: ObjectInfo] = [:]
        for object in objects {
            if let digest = Self.digest(ofKey: object.key), !referenced.contains(digest) { found[digest] = object }
        }
        let grace = graceSeconds
        let due = unreferencedSince.withLock { since in
            since = since.filter { found[$0.key] != nil }
            for digest in found.keys where since[digest] == nil { since[digest] = now }
            return since.filter { digest, first in
                guard now - first >= grace, let written = found[digest]?.lastModified else { return false }
                return now - written >= grace
            }.keys.sorted()
        }
        guard !due.isEmpty else { return pass }
        // The catalog once more: a version recorded since the first read keeps its bundle.
        let stillReferenced: Set<BundleDigest>
        do {
            stillReferenced = try await Self.referenced(ledger)
        } catch {
            return pass
        }
        for digest in due where !stillReferenced.contains(digest) {
            let start = ContinuousClock.now
            do {
                try await client.delete("bundles/\(digest.hex).zip")
                recorder?.objectStoreCall(operation: "delete", outcome: "deleted", bytes: 0, duration: ContinuousClock.now - start)
                pass.deleted.append(digest)
                pass.bytes += found[digest]?.size ?? 0
                unreferencedSince.withLock { _ = $0.removeValue(forKey: digest) }
            } catch {
                recorder?.objectStoreCall(
                    operation: "delete", outcome: error.code ?? "failed", bytes: 0, duration: ContinuousClock.now - start)
                logger.warning("an unreferenced bundle could not be deleted", metadata: ["digest": "\(digest)", "error": "\(error)"])
            }
        }
        return pass
    }

    /// The digests every recorded version and delta refers to.
    static func referenced(_ ledger: any Ledger) async throws(LedgerError) -> Set<BundleDigest> {
        let snapshot = try await ledger.catalogSnapshot()
        return Set(snapshot.versions.map(\.content.digest) + snapshot.deltas.map(\.digest))
    }
}
