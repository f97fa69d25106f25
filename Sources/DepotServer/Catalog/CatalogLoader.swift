import DepotBundles
import DepotCore
import Foundation
import Logging

/// Imports the content directory at start: reads every pack, refuses the invalid ones with a logged
/// reason, builds (or finds already built) each pack's bundle, and returns the catalog to serve.
package enum CatalogLoader {
    /// The outcome of an import.
    package struct Result: Sendable {
        /// What is served.
        package var catalog: Catalog
        /// Bundle files by digest.
        package var bundles: [ServedBundle]
        /// Packs refused, with the reason for each.
        package var refused: [(directory: String, reason: String)]
    }

    /// Imports the packs under `configuration.contentDirectory` into the bundle store under the data directory.
    package static func load(_ configuration: DepotConfiguration, store: LocalBundleStore, logger: Logger) async throws
        -> Result
    {
        let limits = PackLimits(
            maxFileCount: configuration.bundles.maxFileCount,
            maxFileSize: configuration.bundles.maxFileSize,
            maxTotalSize: configuration.bundles.maxTotalSize)
        let catalogProducts = Catalog(products: configuration.products, versions: [])
        var versions: [ContentVersion] = []
        var bundles: [ServedBundle] = []
        var refused: [(String, String)] = []
        var seen: Set<String> = []
        var contentOwners: [String: String] = [:]
        var imported: [(pack: Pack, version: ContentVersion)] = []

        let directories: [String]
        if FileManager.default.fileExists(atPath: configuration.contentDirectory) {
            directories = try PackReader.discover(root: configuration.contentDirectory)
        } else {
            logger.warning("no content directory", metadata: ["path": "\(configuration.contentDirectory)"])
            directories = []
        }
        for directory in directories {
            let pack: Pack
            do {
                pack = try PackReader.read(directory: directory, limits: limits)
            } catch {
                refused.append((directory, error.description))
                logger.error("pack refused", metadata: ["pack": "\(directory)", "reason": "\(error.description)"])
                continue
            }
            if !pack.ignored.isEmpty {
                logger.notice(
                    "pack clutter ignored",
                    metadata: ["pack": "\(directory)", "ignored": "\(pack.ignored.joined(separator: ", "))"])
            }
            let manifest = pack.manifest
            guard catalogProducts.product(id: manifest.productId) != nil else {
                let reason = "product \(manifest.productId) is not in products.json"
                refused.append((directory, reason))
                logger.error("pack refused", metadata: ["pack": "\(directory)", "reason": "\(reason)"])
                continue
            }
            if let owner = contentOwners[manifest.contentId], owner != manifest.productId {
                let reason = "content id \(manifest.contentId) already belongs to product \(owner); a content id names one product's content"
                refused.append((directory, reason))
                logger.error("pack refused", metadata: ["pack": "\(directory)", "reason": "\(reason)"])
                continue
            }
            let key = "\(manifest.productId)\n\(manifest.contentId)\n\(manifest.version)"
            guard seen.insert(key).inserted else {
                let reason = "another pack already holds \(manifest.contentId) version \(manifest.version)"
                refused.append((directory, reason))
                logger.error("pack refused", metadata: ["pack": "\(directory)", "reason": "\(reason)"])
                continue
            }
            let record = try await store.build(pack, compressionLevel: configuration.bundles.compressionLevel)
            guard let path = store.path(for: record.digest) else {
                throw ConfigurationError("bundle \(record.digest) vanished from the store right after it was built")
            }
            let version = ContentVersion(
                productId: manifest.productId, contentId: manifest.contentId, version: manifest.version,
                publishedAt: manifest.publishedAt, digest: record.digest, size: record.size,
                unpackedSize: pack.unpackedSize)
            versions.append(version)
            contentOwners[manifest.contentId] = manifest.productId
            imported.append((pack, version))
            bundles.append(ServedBundle(version: version, path: path))
            logger.debug(
                "pack imported",
                metadata: [
                    "content": "\(manifest.contentId)", "version": "\(manifest.version)",
                    "digest": "\(record.digest)", "size": "\(record.size)",
                ])
        }
        let (deltas, deltaBundles) = try await buildDeltas(imported, configuration: configuration, store: store, logger: logger)
        return Result(
            catalog: Catalog(products: configuration.products, versions: versions, deltas: deltas),
            bundles: bundles + deltaBundles, refused: refused)
    }

    /// Builds a delta from every older version of a content to every newer one, so that whichever version is
    /// current (scheduled versions become current at their time) can be reached from each one before it.
    private static func buildDeltas(
        _ imported: [(pack: Pack, version: ContentVersion)], configuration: DepotConfiguration, store: LocalBundleStore,
        logger: Logger
    ) async throws -> ([DeltaBundle], [ServedBundle]) {
        let byContent = Dictionary(grouping: imported) { "\($0.version.productId)\n\($0.version.contentId)" }
        var deltas: [DeltaBundle] = []
        var served: [ServedBundle] = []
        for key in byContent.keys.sorted() {
            let history = byContent[key]!.sorted { ($0.version.publishedAt, $0.version.version) < ($1.version.publishedAt, $1.version.version) }
            let pairs = history.indices.flatMap { target in history[..<target].map { (base: $0, current: history[target]) } }
            for (base, current) in pairs {
                let record = try await store.buildDelta(
                    from: base.pack, to: current.pack, compressionLevel: configuration.bundles.compressionLevel)
                guard let path = store.path(for: record.digest) else { continue }
                let delta = DeltaBundle(
                    productId: current.version.productId, contentId: current.version.contentId, baseVersion: base.version.version,
                    targetVersion: current.version.version, digest: record.digest, size: record.size)
                deltas.append(delta)
                var version = current.version
                version.digest = record.digest
                version.size = record.size
                served.append(ServedBundle(version: version, path: path))
                logger.debug(
                    "delta built",
                    metadata: ["content": "\(delta.contentId)", "from": "\(delta.baseVersion)", "to": "\(delta.targetVersion)"])
            }
        }
        return (deltas, served)
    }
}
