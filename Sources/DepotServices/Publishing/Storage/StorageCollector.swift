import DepotCore
import DepotLedger
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import DepotSystem

/// Removes the files no recorded version or delta refers to any more: bundles under `<data>/bundles` and
/// pack copies under `<data>/packs` left by deleted versions, by failed or abandoned stagings, by deltas
/// that were never recorded. Without it the data directory only grows.
///
/// A file is removed only after it was found unreferenced for `graceSeconds` in a row (so that a grant in
/// flight for a version deleted a moment ago still downloads) and when its own age is past the grace too (a
/// bundle being staged is written before its version is recorded). The catalog is read from the ledger, so
/// instances that share a data directory and a ledger agree on what is referenced; a failed read removes
/// nothing. Runs every `intervalSeconds` while the server runs.
package final class StorageCollector: Service, Sendable {
    /// What one pass removed.
    package struct Pass: Sendable, Equatable {
        /// Bundle files removed, by digest.
        package var bundles: [String] = []
        /// Pack copies removed, by digest.
        package var packs: [String] = []
        /// Bytes freed.
        package var bytes: Int64 = 0

        /// A pass that removed nothing yet.
        package init() {}
    }

    let ledger: any Ledger
    let bundlesRoot: String
    let packsRoot: String
    let graceSeconds: Int64
    let intervalSeconds: Int64
    let clock: @Sendable () -> Int64
    let logger: Logger
    /// Told the digest of each bundle file removed (the bundle store's local cache then forgets it).
    let bundleRemoved: (@Sendable (BundleDigest) -> Void)?
    /// When each unreferenced digest was first found unreferenced.
    private let unreferencedSince = Mutex<[String: Int64]>([:])

    /// A collector of the bundle store at `bundlesRoot` and the pack shelf at `packsRoot`; `bundleRemoved` is told
    /// each bundle file removed.
    package init(
        ledger: any Ledger, bundlesRoot: String, packsRoot: String, graceSeconds: Int64, intervalSeconds: Int64,
        clock: @escaping @Sendable () -> Int64, logger: Logger, bundleRemoved: (@Sendable (BundleDigest) -> Void)? = nil
    ) {
        self.bundleRemoved = bundleRemoved
        self.ledger = ledger
        self.bundlesRoot = bundlesRoot
        self.packsRoot = packsRoot
        self.graceSeconds = graceSeconds
        self.intervalSeconds = intervalSeconds
        self.clock = clock
        self.logger = logger
    }

    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let pass = await collectOnce()
            if !pass.bundles.isEmpty || !pass.packs.isEmpty {
                logger.info(
                    "unreferenced files removed",
                    metadata: ["bundles": "\(pass.bundles.count)", "packs": "\(pass.packs.count)", "bytes": "\(pass.bytes)"])
            }
            try? await gracefulShutdownSleep(seconds: intervalSeconds)
        }
    }

    private func gracefulShutdownSleep(seconds: Int64) async throws {
        try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(max(1, seconds))) }
    }

    /// One pass: reads what the catalog refers to, then removes what has been unreferenced long enough.
    package func collectOnce() async -> Pass {
        let snapshot: CatalogSnapshot
        do {
            snapshot = try await ledger.catalogSnapshot()
        } catch {
            logger.warning("unreferenced files not collected: the ledger could not be read", metadata: ["error": "\(error)"])
            return Pass()
        }
        let referenced = Set(snapshot.versions.map(\.content.digest.hex) + snapshot.deltas.map(\.digest.hex))
        let now = clock()
        // Directory walks, stats and removals block: off the concurrency pool, as the rest of the file work is.
        let (bundlesRoot, packsRoot, grace) = (bundlesRoot, packsRoot, graceSeconds)
        let (bundleFiles, packFolders) = await OffLoop.run {
            (StoredFiles.bundles(under: bundlesRoot), StoredFiles.packs(under: packsRoot))
        }
        let candidates = Set(bundleFiles.keys).union(packFolders.keys).subtracting(referenced)
        let due = unreferencedSince.withLock { since in
            since = since.filter { candidates.contains($0.key) }
            for digest in candidates where since[digest] == nil { since[digest] = now }
            return Set(since.filter { now - $0.value >= graceSeconds }.keys)
        }
        let pass = await OffLoop.run {
            Self.remove(due, bundleFiles: bundleFiles, packFolders: packFolders, now: now, graceSeconds: grace)
        }
        unreferencedSince.withLock { since in for digest in pass.bundles + pass.packs { since.removeValue(forKey: digest) } }
        if let bundleRemoved {
            for digest in pass.bundles.compactMap({ BundleDigest(hex: $0) }) { bundleRemoved(digest) }
        }
        return pass
    }

    /// Removes the files of the `due` digests whose own age is past the grace too. Blocking file work.
    private static func remove(
        _ due: Set<String>, bundleFiles: [String: StoredFiles.Found], packFolders: [String: StoredFiles.Found], now: Int64,
        graceSeconds: Int64
    ) -> Pass {
        var pass = Pass()
        for digest in due.sorted() {
            if let file = bundleFiles[digest], now - file.modified >= graceSeconds, unlink(file.path) == 0 {
                pass.bundles.append(digest)
                pass.bytes += file.size
            }
            if let folder = packFolders[digest], now - folder.modified >= graceSeconds {
                let size = StoredFiles.treeSize(folder.path)
                if (try? FileManager.default.removeItem(atPath: folder.path)) != nil {
                    pass.packs.append(digest)
                    pass.bytes += size
                }
            }
        }
        return pass
    }
}
