import DepotBundles
import DepotCore
import DepotLedger
import Foundation
import DepotSystem

/// Turns a pack directory (unpacked and laid out as a content pack) into a staged version: validates it
/// with `PackReader`, bundles it into the store off the event loops, keeps a copy of the pack for later
/// delta bundles, and records the version as `staged` in the ledger. A staged version is not offered until
/// it is published.
///
/// Staging the same pack at the same version again returns the recorded version and changes nothing;
/// another pack at a recorded version is refused (`version-exists`), and so is a content id outside the
/// asking key's scope (`content-out-of-scope`).
package struct VersionStager: Sendable {
    /// What the caller declares about the version; the pack's `pack.json` must agree.
    package struct Request: Sendable {
        /// The product the version belongs to (the route's product).
        package var productId: String
        /// The declared version; nil takes the manifest's.
        package var version: String?
        /// The declared content id; nil takes the manifest's.
        package var contentId: String?
        /// A publication time (seconds since 1970) replacing the manifest's, if given.
        package var publishedAt: Int64?
        /// The publisher whose key asked for the version, if one did: the pack's content id must lie within
        /// its key's scope. Nil for the operator's own staging (start-up import, `depot dev stage`).
        package var publisher: AuthenticatedPublisher?

        /// Creates a request.
        package init(
            productId: String, version: String? = nil, contentId: String? = nil, publishedAt: Int64? = nil,
            publisher: AuthenticatedPublisher? = nil
        ) {
            self.productId = productId
            self.version = version
            self.contentId = contentId
            self.publishedAt = publishedAt
            self.publisher = publisher
        }
    }

    let ledger: any Ledger
    let store: LocalBundleStore
    let shelf: PackShelf
    let limits: PackLimits
    let compressionLevel: Int
    let clock: @Sendable () -> Int64
    /// Where bundle build times go; nil records nothing.
    let metrics: (any BundleBuildTimer)?

    /// A stager over the given ledger, store and shelf.
    package init(
        ledger: any Ledger, store: LocalBundleStore, shelf: PackShelf, limits: PackLimits, compressionLevel: Int,
        clock: @escaping @Sendable () -> Int64, metrics: (any BundleBuildTimer)? = nil
    ) {
        self.metrics = metrics
        self.ledger = ledger
        self.store = store
        self.shelf = shelf
        self.limits = limits
        self.compressionLevel = compressionLevel
        self.clock = clock
    }

    /// Stages the pack at `directory` as a version of `request.productId`. The directory is only read; the
    /// caller may remove it afterwards.
    package func stage(directory: String, _ request: Request) async throws(StageError) -> CatalogVersion {
        let limits = limits
        var pack: Pack
        do {
            pack = try await OffLoop.run { () throws(PackError) -> Pack in try PackReader.read(directory: directory, limits: limits) }
        } catch {
            throw StageError(.invalidPack, error.message)
        }
        try Self.check(pack.manifest, against: request)
        if let publishedAt = request.publishedAt { pack.manifest.publishedAt = publishedAt }
        guard try await ledgerCall({ () async throws(LedgerError) in try await ledger.catalogProduct(id: request.productId) }) != nil
        else {
            throw StageError(.unknownProduct, "product \(request.productId) is not in the catalog; create it with PUT first")
        }
        let record: BundleRecord
        do {
            let store = store
            let compressionLevel = compressionLevel
            record = try await metrics.timingBuild(.full) { try await store.build(pack, compressionLevel: compressionLevel) }
            let shelf = shelf
            let digest = record.digest
            try await OffLoop.run { () throws(StageError) in
                do { try shelf.keep(directory: directory, digest: digest) } catch {
                    throw StageError(.unavailable, "the pack could not be kept for delta bundles: \(error)")
                }
            }
        } catch let error as StageError {
            throw error
        } catch {
            throw StageError(.unavailable, "the bundle could not be built: \(error)")
        }
        let manifest = pack.manifest
        let version = ContentVersion(
            productId: manifest.productId, contentId: manifest.contentId, version: manifest.version,
            publishedAt: manifest.publishedAt, digest: record.digest, size: record.size, unpackedSize: pack.unpackedSize)
        let now = clock()
        let outcome = try await ledgerCall { () async throws(LedgerError) in try await ledger.addVersion(version, state: .staged, now: now)
        }
        switch outcome {
        case .added(let staged), .unchanged(let staged):
            return staged
        case .conflict(let existing):
            throw StageError(
                .versionExists,
                "product \(manifest.productId), content \(manifest.contentId), version \(manifest.version) is already recorded "
                    + "with another pack (\(existing.state.rawValue), bundle \(existing.content.digest)); give the new pack a new version")
        case .contentOwnedByOtherProduct(let owner):
            throw StageError(.contentOwned, "content id \(manifest.contentId) already belongs to product \(owner)")
        case .unknownProduct:
            throw StageError(.unknownProduct, "product \(request.productId) is not in the catalog; create it with PUT first")
        }
    }

    private static func check(_ manifest: PackManifest, against request: Request) throws(StageError) {
        guard manifest.productId == request.productId else {
            throw StageError(
                .packMismatch, "the pack's pack.json names product \(manifest.productId), not \(request.productId)")
        }
        if let version = request.version, version != manifest.version {
            throw StageError(.packMismatch, "the pack's pack.json says version \(manifest.version), not \(version)")
        }
        if let contentId = request.contentId, contentId != manifest.contentId {
            throw StageError(.packMismatch, "the pack's pack.json names content \(manifest.contentId), not \(contentId)")
        }
        // A key scoped to some prefixes may not claim (or squat) a content id another publisher's scope holds.
        if let publisher = request.publisher, !publisher.mayAct(on: manifest.contentId) {
            throw StageError(
                .contentOutOfScope,
                "the pack's pack.json names content \(manifest.contentId), outside this publisher key's scope")
        }
    }

    private func ledgerCall<T>(_ body: () async throws(LedgerError) -> T) async throws(StageError) -> T {
        do {
            return try await body()
        } catch {
            throw StageError(.unavailable, "the ledger could not record the version: \(error.message)")
        }
    }
}
