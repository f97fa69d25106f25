import DepotBundles
import DepotCore
import DepotLedger
import Logging
import ServiceLifecycle
import DepotSystem

/// Builds delta bundles towards a version that was just published, from the few most recent versions of the
/// same content that apps may have installed (published before, by publication time), not from every pair:
/// each delta is stored like a bundle and recorded in the ledger, which moves the catalog's revision so
/// every instance starts offering it.
///
/// As a `Service`, it takes targets from a queue and builds in the background, one after the other.
package final class DeltaBuilder: Service, Sendable {
    let ledger: any Ledger
    let store: LocalBundleStore
    let shelf: PackShelf
    let limits: PackLimits
    let compressionLevel: Int
    /// How many earlier versions a new version gets deltas from.
    let baseCount: Int
    let logger: Logger
    private let queue: AsyncStream<ContentVersion>
    private let sink: AsyncStream<ContentVersion>.Continuation
    /// Called after a delta was recorded (the server refreshes its catalog).
    let onRecorded: @Sendable () async -> Void
    /// Where bundle build times go; nil records nothing.
    let metrics: (any BundleBuildTimer)?

    /// A builder over the given store and shelf.
    package init(
        ledger: any Ledger, store: LocalBundleStore, shelf: PackShelf, limits: PackLimits, compressionLevel: Int,
        baseCount: Int, logger: Logger, metrics: (any BundleBuildTimer)? = nil, onRecorded: @escaping @Sendable () async -> Void = {}
    ) {
        self.metrics = metrics
        self.ledger = ledger
        self.store = store
        self.shelf = shelf
        self.limits = limits
        self.compressionLevel = compressionLevel
        self.baseCount = baseCount
        self.logger = logger
        self.onRecorded = onRecorded
        (queue, sink) = AsyncStream.makeStream(of: ContentVersion.self)
    }

    /// Asks for deltas towards `target`, built in the background.
    package func enqueue(_ target: ContentVersion) {
        sink.yield(target)
    }

    package func run() async throws {
        await withGracefulShutdownHandler {
            for await target in queue {
                do {
                    if try await build(towards: target) > 0 { await onRecorded() }
                } catch {
                    logger.error(
                        "delta bundles not built",
                        metadata: ["content": "\(target.contentId)", "version": "\(target.version)", "error": "\(error)"])
                }
            }
        } onGracefulShutdown: {
            self.sink.finish()
        }
    }

    /// Builds and records the deltas towards `target` that are not recorded yet; returns how many were
    /// recorded. Bases whose pack is not known are skipped. `olderOnly` keeps to bases published before the
    /// target (the start-up import); a publish also takes newer ones, as a rollback goes back from them.
    @discardableResult
    package func build(towards target: ContentVersion, olderOnly: Bool = false) async throws -> Int {
        let versions = try await ledger.catalogVersions(productId: target.productId)
            .filter { $0.content.contentId == target.contentId }
        let recorded = Set(
            try await ledger.catalogSnapshot().deltas.filter { $0.contentId == target.contentId }
                .map { "\($0.baseVersion)\n\($0.targetVersion)" })
        let channel = versions.first { $0.content.version == target.version }?.release.channel ?? .production
        let bases = DeltaBases.choose(
            for: target, in: channel,
            among: versions.filter { !olderOnly || ($0.content.publishedAt, $0.content.version) < (target.publishedAt, target.version) },
            count: baseCount
        )
        .filter { !recorded.contains("\($0.version)\n\(target.version)") }
        guard !bases.isEmpty, let targetPack = await pack(of: target) else { return 0 }
        var count = 0
        for base in bases {
            guard let basePack = await pack(of: base) else {
                logger.notice("no pack to build a delta from", metadata: ["content": "\(base.contentId)", "version": "\(base.version)"])
                continue
            }
            let record = try await metrics.timingBuild(.delta) {
                try await store.buildDelta(from: basePack, to: targetPack, compressionLevel: compressionLevel)
            }
            let delta = DeltaBundle(
                productId: target.productId, contentId: target.contentId, baseVersion: base.version,
                targetVersion: target.version, digest: record.digest, size: record.size)
            if try await ledger.recordDelta(delta) { count += 1 }
            logger.debug(
                "delta built", metadata: ["content": "\(delta.contentId)", "from": "\(delta.baseVersion)", "to": "\(delta.targetVersion)"])
        }
        return count
    }
}

extension DeltaBuilder {
    /// The pack of a version: its copy on the shelf, or, when bundles are shared through an object store and this
    /// instance has no copy (another one staged it), the pack made again from the version's bundle.
    func pack(of version: ContentVersion) async -> Pack? {
        if let pack = shelf.pack(digest: version.digest, limits: limits) { return pack }
        guard store.sharesBundles else { return nil }
        do {
            guard let bundle = try await store.fetch(version.digest, size: version.size) else { return nil }
            let (shelf, limits, digest) = (shelf, limits, version.digest)
            return try await OffLoop.run { () throws -> Pack in try shelf.restore(digest: digest, fromBundle: bundle, limits: limits) }
        } catch {
            logger.warning(
                "the pack of a version could not be made from its bundle",
                metadata: ["content": "\(version.contentId)", "version": "\(version.version)", "error": "\(error)"])
            return nil
        }
    }
}

/// Which earlier versions a new version gets deltas from: the `count` most recent other versions that apps may
/// hold (published now or before), by publication time (then version), newest first. A target released in
/// production takes its bases only from versions released in production: a delta lists the files its base had and
/// the target has not (`RemovedPaths`), so a production delta from a beta version would show every production buyer
/// the beta's file names, and a production buyer never holds a beta version anyway.
enum DeltaBases {
    static func choose(
        for target: ContentVersion, in channel: VersionRelease.Channel, among versions: [CatalogVersion], count: Int
    ) -> [ContentVersion] {
        Array(
            versions.filter { $0.state.wasPublished && (channel == .beta || $0.release.channel == .production) }
                .map(\.content)
                .filter { $0.version != target.version }
                .sorted { ($0.publishedAt, $0.version) > ($1.publishedAt, $1.version) }
                .prefix(max(0, count)))
    }
}
