import DepotBundles
import DepotCore
import DepotLedger
import Logging
import Synchronization

/// Loads the ledger's catalog when its revision moved and installs it: the catalog and lists in the
/// `CatalogHolder`, the served bundles in the `ServedBundleTable`. A version whose bundle is missing from the store
/// (and could not be fetched from the object store) stays in the catalog, marked unservable (and logged): it is
/// still listed and entitled, and a redeem that would offer it is refused for a while (`bundle-unavailable`) rather
/// than answered with less than the purchase entitles. A delta whose bundle is missing is left out: the full bundle
/// is offered instead.
package struct CatalogRefresher: Sendable {
    let ledger: any Ledger
    /// Where the catalog and its lists are installed.
    package let holder: CatalogHolder
    let index: any ServedBundleTable
    let store: LocalBundleStore
    /// Product ids in the configuration's order: the lists show these first.
    let productOrder: [String]
    let clock: @Sendable () -> Int64
    let logger: Logger
    /// The bundles of the installed catalog that could not be fetched from the object store, and when that was last
    /// tried: they are tried again every `missingRetrySeconds` while the revision stays the same.
    let missing = MissingBundles()
    /// When this instance last replaced the reported copies it holds good ones of (see ``repairReported()``).
    let repairs = RepairSchedule()
    /// When this instance last tried to send the bundles the object store did not take (see ``sendUnsent()``).
    let sends = RepairSchedule()
    /// When a failed send was last logged as a warning.
    let sendFailures = RepairSchedule()
    /// Whether a send of the unsent bundles is under way.
    let sending = SingleRun()
    /// Versions new to the ledger whose bundles were not sent at start (see ``recordOnceSent(_:)``).
    let deferred = DeferredVersions()
    /// Seconds between two attempts at bundles that could not be fetched.
    package static let missingRetrySeconds: Int64 = 15

    /// How many bundles of the installed catalog could not be fetched from the object store at the last attempt:
    /// while any could not, the instance is degraded (`/readyz`).
    package var unfetchableCount: Int { missing.count }

    /// How many bundles built here wait to be sent to the object store: while any do, the other instances cannot
    /// fetch them, and this instance is degraded (`/readyz`).
    package var unsentCount: Int { store.unsentCount }

    /// A refresher installing `ledger`'s catalog into `holder` and `index`, offering only what `store` holds.
    package init(
        ledger: any Ledger, holder: CatalogHolder, index: any ServedBundleTable, store: LocalBundleStore,
        productOrder: [String], clock: @escaping @Sendable () -> Int64, logger: Logger
    ) {
        self.ledger = ledger
        self.holder = holder
        self.index = index
        self.store = store
        self.productOrder = productOrder
        self.clock = clock
        self.logger = logger
    }

    /// Installs the ledger's catalog if its revision differs from the one served. Returns whether it did.
    @discardableResult
    package func refresh() async throws(LedgerError) -> Bool {
        await repairReportedIfDue()
        sendUnsentIfDue()
        let revision = try await ledger.catalogRevision()
        guard revision != holder.revision else {
            let now = clock()
            let retry = missing.due(at: now, every: Self.missingRetrySeconds)
            return retry ? try await reload(replacingSameRevision: true) : false
        }
        return try await reload()
    }

    /// Reads the whole catalog and installs it, whatever revision is served.
    @discardableResult
    package func reload(replacingSameRevision: Bool = false) async throws(LedgerError) -> Bool {
        let snapshot = try await ledger.catalogSnapshot()
        let full = snapshot.catalog(productOrder: productOrder)
        let unfetched = await fetchMissingBundles(of: full)
        let now = clock()
        missing.record(unfetched, at: now)
        let (catalog, bundles) = servable(full)
        do {
            guard try holder.install(catalog, revision: snapshot.revision, now: now, replacingSameRevision: replacingSameRevision)
            else { return false }
        } catch {
            throw LedgerError.corrupt("the catalog at revision \(snapshot.revision) cannot be listed: \(error)")
        }
        index.replace(withBundles: bundles)
        logger.debug("catalog installed", metadata: ["revision": "\(snapshot.revision)", "bundles": "\(bundles.count)"])
        return true
    }

    /// Brings in from the store's replica (another instance built them) the bundles of `catalog` this instance lacks,
    /// four at a time; returns those still missing. One that cannot be fetched is logged, its version is marked
    /// unservable in the catalog served (see `servable`), and it is tried again later (see `refresh`); the store
    /// reports a copy missing from the object store or damaged there, for an instance holding a good one to replace
    /// it (see ``repairReported()``).
    func fetchMissingBundles(of catalog: Catalog) async -> Set<BundleDigest> {
        let sizes = Dictionary(
            (catalog.versions + catalog.superseded + catalog.limited.map(\.version)).map { ($0.digest, $0.size) }
                + catalog.deltas.map { ($0.digest, $0.size) },
            uniquingKeysWith: { first, _ in first })
        let bundles = store
        let logger = logger
        // With a bounded local cache, bundles are fetched when first asked for, not all at once.
        guard bundles.sharesBundles, !bundles.fetchesOnDemand else { return [] }
        let wanted = sizes.keys.sorted().filter { bundles.path(for: $0) == nil }
        guard !wanted.isEmpty else { return [] }
        return await withTaskGroup(of: BundleDigest?.self) { group in
            var next = wanted.makeIterator()
            func start() -> Bool {
                guard let digest = next.next() else { return false }
                group.addTask {
                    do {
                        return try await bundles.fetch(digest, size: sizes[digest]) == nil ? digest : nil
                    } catch {
                        logger.error("bundle not fetched from the object store", metadata: ["digest": "\(digest)", "error": "\(error)"])
                        return digest
                    }
                }
                return true
            }
            for _ in 0..<4 where start() {}
            var unfetched: Set<BundleDigest> = []
            for await result in group {
                if let result { unfetched.insert(result) }
                _ = start()
            }
            return unfetched
        }
    }

    /// The catalog with the versions whose bundle file is not in the store marked unservable and the deltas whose
    /// bundle file is not in the store left out, and the served bundles. When the store fetches bundles when asked for
    /// (an object store behind a bounded local cache), every version is served: the byte path brings in a file that is
    /// not on this disk.
    func servable(_ catalog: Catalog) -> (Catalog, [(version: ContentVersion, path: String)]) {
        var bundles: [(version: ContentVersion, path: String)] = []
        var unservable: Set<BundleDigest> = []
        let onDemand = store.fetchesOnDemand
        func keep(_ version: ContentVersion) -> Bool {
            guard let path = onDemand ? store.localPath(for: version.digest) : store.path(for: version.digest) else {
                logger.error(
                    "bundle missing from the store",
                    metadata: ["content": "\(version.contentId)", "version": "\(version.version)", "digest": "\(version.digest)"])
                return false
            }
            bundles.append((version, path))
            return true
        }
        // A version stays whether or not its bundle is here: a product that has versions never becomes an empty offer.
        for version in catalog.versions + catalog.superseded + catalog.limited.map(\.version) where !keep(version) {
            unservable.insert(version.digest)
        }
        let versions = catalog.versions
        let superseded = catalog.superseded
        let limited = catalog.limited
        let byVersion = Dictionary(
            (versions + superseded + limited.map(\.version)).map { ("\($0.productId)\n\($0.contentId)\n\($0.version)", $0) },
            uniquingKeysWith: { first, _ in first })
        let deltas = catalog.deltas.filter { delta in
            guard let target = byVersion["\(delta.productId)\n\(delta.contentId)\n\(delta.targetVersion)"] else { return false }
            var version = target
            version.digest = delta.digest
            version.size = delta.size
            return keep(version)
        }
        return (
            Catalog(
                products: catalog.products, versions: versions, superseded: superseded, limited: limited, deltas: deltas,
                changedAt: catalog.changedAt, unservable: unservable),
            bundles
        )
    }
}

/// The bundles of the installed catalog that could not be fetched, and when that was last tried.
final class MissingBundles: Sendable {
    private let state = Mutex<(digests: Set<BundleDigest>, triedAt: Int64)>(([], 0))

    /// Records the outcome of an attempt at `now`.
    func record(_ digests: Set<BundleDigest>, at now: Int64) {
        state.withLock { $0 = (digests, now) }
    }

    /// How many could not be fetched at the last attempt.
    var count: Int { state.withLock { $0.digests.count } }

    /// Whether some are missing and the last attempt is at least `seconds` old.
    func due(at now: Int64, every seconds: Int64) -> Bool {
        state.withLock { !$0.digests.isEmpty && now - $0.triedAt >= seconds }
    }
}
