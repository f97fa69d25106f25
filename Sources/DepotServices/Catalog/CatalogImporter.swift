import DepotBundles
import DepotCore
import DepotLedger
import Foundation
import Logging

/// Imports `Config/products.json` and the content directory into the ledger's catalog at start, idempotently.
///
/// Products missing from the ledger are added (a product the ledger already holds keeps the ledger's
/// values: a publisher's edit is never overwritten). Every pack is read and validated, bundled (or found
/// already bundled), and recorded as a published version: the same pack at the same version is the same
/// record and changes nothing; a changed pack at a recorded version is refused with a message naming the
/// product, the content and the version. Refused packs are logged and listed; the rest is imported.
///
/// With an object store, a bundle the bucket cannot take now (unreachable at start: once one bundle fails, the rest
/// are not tried) is kept on this disk until it is sent (`LocalBundleStore.sendUnsent()`), and the instance starts. A
/// version the ledger already holds is served from this disk meanwhile; a version new to the ledger is not recorded
/// until its bundle is in the bucket (``Result/deferred``): the other instances, which read the same ledger, could not
/// fetch it, and would refuse every redeem that offers it. The first version of a product is the exception (see
/// ``defers(_:ledger:)``).
package enum CatalogImporter {
    /// What the import did.
    package struct Result: Sendable {
        /// Packs refused, with the reason for each.
        package var refused: [(directory: String, reason: String)]
        /// Versions recorded by this import (new to the ledger).
        package var added: [ContentVersion]
        /// Every version the content directory holds that the ledger has (new or already recorded).
        package var imported: [ContentVersion]
        /// Versions new to the ledger whose bundles the object store could not take: to record once it has them.
        package var deferred: [ContentVersion] = []
    }

    /// Imports `products` and the packs of `contentDirectory` (read within `packLimits`, bundled at
    /// `compressionLevel`, each build timed by `buildTimer`); records each pack's directory on the shelf for
    /// later delta builds.
    package static func run(
        products: [Product], contentDirectory: String, packLimits: PackLimits, compressionLevel: Int,
        ledger: any Ledger, store: LocalBundleStore, shelf: PackShelf, now: Int64, logger: Logger,
        buildTimer: (any BundleBuildTimer)? = nil
    ) async throws -> Result {
        for product in products {
            let record = CatalogProduct(
                id: product.id, type: product.type, title: product.title,
                periodDays: product.periodSeconds.map { Int($0 / 86_400) })
            if case .kept(let kept) = try await ledger.writeProduct(record, keepExisting: true, now: now), kept != record {
                logger.notice(
                    "product differs from products.json; the ledger's record is kept",
                    metadata: ["product": "\(product.id)", "ledger": "\(kept.type.rawValue) \"\(kept.title)\""])
            }
        }
        var result = Result(refused: [], added: [], imported: [])
        func refuse(_ directory: String, _ reason: String) {
            result.refused.append((directory, reason))
            logger.error("pack refused", metadata: ["pack": "\(directory)", "reason": "\(reason)"])
        }
        for directory in try packDirectories(contentDirectory, logger: logger) {
            let pack: Pack
            do {
                pack = try PackReader.read(directory: directory, limits: packLimits)
            } catch {
                refuse(directory, error.description)
                continue
            }
            if !pack.ignored.isEmpty {
                logger.notice(
                    "pack clutter ignored",
                    metadata: ["pack": "\(directory)", "ignored": "\(pack.ignored.joined(separator: ", "))"])
            }
            let manifest = pack.manifest
            guard try await ledger.catalogProduct(id: manifest.productId) != nil else {
                refuse(directory, "product \(manifest.productId) is not in products.json nor in the ledger's catalog")
                continue
            }
            let record = try await buildTimer.timingBuild(.full) {
                try await store.build(
                    pack, compressionLevel: compressionLevel, whenReplicaFails: store.unsentCount > 0 ? .holdForLater : .sendLater)
            }
            let version = ContentVersion(
                productId: manifest.productId, contentId: manifest.contentId, version: manifest.version,
                publishedAt: manifest.publishedAt, digest: record.digest, size: record.size, unpackedSize: pack.unpackedSize)
            if store.isUnsent(record.digest), try await Self.defers(version, ledger: ledger) {
                logger.warning(
                    "a new version is recorded once the object store holds its bundle",
                    metadata: ["content": "\(version.contentId)", "version": "\(version.version)", "digest": "\(record.digest)"])
                result.deferred.append(version)
                shelf.noteImported(digest: record.digest, directory: directory)
                continue
            }
            switch try await ledger.addVersion(version, state: .published, now: now) {
            case .added:
                result.added.append(version)
                result.imported.append(version)
            case .unchanged:
                result.imported.append(version)
            case .conflict(let existing):
                refuse(
                    directory,
                    "product \(manifest.productId), content \(manifest.contentId), version \(manifest.version) is already "
                        + "recorded with another pack (bundle \(existing.content.digest), published "
                        + "\(UTCTimestamp.format(existing.content.publishedAt))); a recorded version never changes: give the changed pack a new version"
                )
                continue
            case .contentOwnedByOtherProduct(let owner):
                refuse(
                    directory,
                    "content id \(manifest.contentId) already belongs to product \(owner); a content id names one product's content")
                continue
            case .unknownProduct:
                refuse(directory, "product \(manifest.productId) is not in products.json nor in the ledger's catalog")
                continue
            }
            shelf.noteImported(digest: record.digest, directory: directory)
        }
        if store.unsentCount > 0 {
            logger.error(
                "bundles built at start could not be sent to the object store; they are served from this disk and sent once it answers",
                metadata: ["bundles": "\(store.unsentCount)"])
        }
        return result
    }

    /// Whether a version whose bundle the object store has not taken is left unrecorded for now: it is new to the
    /// ledger, and its product has other versions to offer meanwhile. The first version of a product is recorded all
    /// the same: left out, the product would entitle nothing anywhere, and a purchase of it could be finished with
    /// nothing delivered; recorded, an instance that cannot fetch it refuses the redeem (`bundle-unavailable`) until
    /// it is sent.
    private static func defers(_ version: ContentVersion, ledger: any Ledger) async throws -> Bool {
        let recorded = try await ledger.catalogVersions(productId: version.productId)
        return !recorded.isEmpty
            && !recorded.contains { $0.content.contentId == version.contentId && $0.content.version == version.version }
    }

    private static func packDirectories(_ contentDirectory: String, logger: Logger) throws -> [String] {
        guard FileManager.default.fileExists(atPath: contentDirectory) else {
            logger.warning("no content directory", metadata: ["path": "\(contentDirectory)"])
            return []
        }
        return try PackReader.discover(root: contentDirectory)
    }
}
