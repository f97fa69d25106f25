import DepotCore
import DepotSystem
import Dispatch
import Foundation

/// A content-addressed bundle store in a local directory.
///
/// Bundles live at `<root>/<digest[0..<2]>/<digest>.zip`, read-only and never modified. A build writes
/// `<root>/tmp/<workspace>/<random>.partial`, fsyncs it, renames it into place and fsyncs the directory,
/// so a crash leaves either nothing or a whole bundle. Each open store locks a workspace of its own, and
/// opening a store removes only the workspaces nobody holds, so several instances can share a root.
/// `<root>/index.json` (written the same way) maps pack fingerprints to bundles, so a restart does not
/// rebuild what is already stored; instances sharing a root may each rewrite it, which at worst costs a
/// rebuild of identical bytes.
///
/// With a ``BundleReplica`` (an object store), the directory is this instance's copy: every bundle built is sent to
/// the replica before it is returned (so before the ledger names it), and ``fetch(_:)`` brings in, checked against
/// its digest, a bundle another instance built.
package final class LocalBundleStore: BundleStore, Sendable {
    /// The store's directory.
    package let root: String
    let layout: StoreLayout
    private let coordinator: BuildCoordinator
    private let workspace: WorkspaceLock
    /// The shared home of bundles, when instances share no directory.
    let replica: (any BundleReplica)?
    let replication = BundleReplication()
    /// The bundles built here that the replica has not taken yet (see ``ReplicaFailurePolicy/sendLater``).
    let unsent = UnsentBundles()
    /// The bundle files on this instance's disk, when a replica holds them all (see ``LocalBundleCache``).
    let cache: LocalBundleCache?

    /// Opens (creating it if needed) the store at `root` and removes any half-written files; `replica`, when given,
    /// is where bundles are shared with other instances. With a replica, `cacheBytes` (nil: no limit) bounds the
    /// bundle files kept on this disk: the least recently used ones no answer is sending go, and come back from the
    /// replica when asked for again.
    package init(root: String, replica: (any BundleReplica)? = nil, cacheBytes: Int64? = nil) throws {
        self.replica = replica
        let root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: root, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw BundleStoreError(.badRoot, "the bundle store root is not a directory")
        }
        do {
            workspace = try WorkspaceLock(parent: StoreLayout.workspacesDirectory(root: root))
        } catch let error as BundleStoreError {
            throw error
        } catch {
            throw BundleStoreError(.badRoot, "the bundle store cannot be prepared: \(error.localizedDescription)")
        }
        let layout = StoreLayout(root: root, temporaryDirectory: workspace.directory)
        self.root = root
        self.layout = layout
        coordinator = BuildCoordinator(layout: layout, index: BundleIndex.load(from: layout.indexPath))
        if replica != nil {
            let cache = LocalBundleCache(budget: cacheBytes) { digest in
                // Evictions happen when an answer ends, on its event loop. The rename frees the name at once, so a
                // copy fetched again right after is placed under it safely. The unlink, which frees a large file's
                // blocks, runs off the loop.
                let doomed = layout.temporaryPath()
                guard (try? POSIX.renameFile(layout.bundlePath(for: digest), doomed)) != nil else { return }
                DispatchQueue.global(qos: .utility).async { POSIX.unlinkFile(doomed) }
            }
            cache.adopt(layout.storedBundles())
            self.cache = cache
        } else {
            cache = nil
        }
    }

    /// `<root>/<digest[0..<2]>/<digest>.zip` when that file is in place; `nil` otherwise.
    package func path(for digest: BundleDigest) -> String? {
        let path = layout.bundlePath(for: digest)
        guard (try? FileStatus.lstat(path))?.kind == .regular else { return nil }
        return path
    }

    /// Builds `pack`'s bundle unless the cache already holds it, and returns its digest and size.
    /// Concurrent calls for the same pack share one build. The work runs off the concurrency pool. A replica that
    /// cannot take the bundle fails the build.
    package func build(
        _ pack: Pack, compressionLevel: Int = BundleWriter.defaultCompressionLevel
    ) async throws -> BundleRecord {
        try await build(pack, compressionLevel: compressionLevel, whenReplicaFails: .fail)
    }

    /// Builds `pack`'s bundle as ``build(_:compressionLevel:)`` does; `policy` says what a replica that cannot take
    /// the bundle does to the build.
    package func build(
        _ pack: Pack, compressionLevel: Int, whenReplicaFails policy: ReplicaFailurePolicy
    ) async throws -> BundleRecord {
        let fingerprint = pack.fingerprint(compressionLevel: compressionLevel)
        let layout = layout
        let record = try await coordinator.bundle(for: fingerprint) {
            try await Self.runBlocking {
                try Self.buildNow(pack, compressionLevel: compressionLevel, layout: layout)
            }
        }
        try await replicate(record, policy: policy)
        cache?.admit(record.digest, size: record.size)
        return record
    }

    /// Builds the delta bundle from `base` to `target` (see `DeltaPlan`) unless the cache already holds
    /// it, and returns its digest and size. Cached and stored like full bundles, under a fingerprint of
    /// both packs; concurrent calls for the same pair share one build.
    ///
    /// Throws `PackError` `delta-mismatch` when the packs are not versions of the same content.
    package func buildDelta(
        from base: Pack, to target: Pack, compressionLevel: Int = BundleWriter.defaultCompressionLevel
    ) async throws -> BundleRecord {
        let fingerprint = target.deltaFingerprint(from: base, compressionLevel: compressionLevel)
        let layout = layout
        let record = try await coordinator.bundle(for: fingerprint) {
            try await Self.runBlocking {
                try Self.store(layout: layout) { temporary in
                    try BundleWriter(compressionLevel: compressionLevel).writeDelta(
                        from: base, to: target, at: temporary, sync: true
                    )
                }
            }
        }
        try await replicate(record, policy: .fail)
        cache?.admit(record.digest, size: record.size)
        return record
    }

    /// Reads and validates the pack at `directory`, then builds it. A refused pack stores nothing.
    package func importPack(
        directory: String, limits: PackLimits = .default,
        compressionLevel: Int = BundleWriter.defaultCompressionLevel
    ) async throws -> (Pack, BundleRecord) {
        let pack = try await Self.runBlocking { try PackReader.read(directory: directory, limits: limits) }
        return (pack, try await build(pack, compressionLevel: compressionLevel))
    }

    /// How many builds this store instance has run to completion (cache hits and joined builds excluded).
    package var completedBuildCount: Int {
        get async { await coordinator.completedBuilds }
    }

    // MARK: Building

    private static func buildNow(_ pack: Pack, compressionLevel: Int, layout: StoreLayout) throws -> BundleRecord {
        try store(layout: layout) { temporary in
            try BundleWriter(compressionLevel: compressionLevel).write(pack, to: temporary, sync: true)
        }
    }

    /// Runs `write` on a fresh temporary path, then moves the synced bundle into place, read-only.
    private static func store(layout: StoreLayout, write: (String) throws -> BundleRecord) throws -> BundleRecord {
        let temporary = layout.temporaryPath()
        let record = try write(temporary)
        do {
            _ = chmod(temporary, 0o444)  // stored bundles are read-only: they never change
            try layout.place(temporary, as: record)
        } catch {
            POSIX.unlinkFile(temporary)
            throw BundleStoreError("storing the bundle", error)
        }
        return record
    }

    /// Runs blocking file work off the concurrency pool (`OffLoop`).
    static func runBlocking<R: Sendable>(_ work: @escaping @Sendable () throws -> R) async throws -> R {
        try await OffLoop.run(work)
    }
}
