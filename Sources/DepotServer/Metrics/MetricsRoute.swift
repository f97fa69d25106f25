import DepotTelemetry
import DepotAPI
import DepotBundles
import DepotCore
import DepotLedger
import DepotOrigin
import DepotServices
import Foundation
import Hummingbird
import Logging
import NIOCore

/// `GET /metrics`: every metric in the Prometheus text format (version 0.0.4), behind a bearer token (an
/// admin token, or one of `metrics.tokenSHA256`). Before rendering, the values that are read rather than
/// counted are brought up to date: the App Store outbox's depth from the ledger, the purge queue, open
/// connections, the edge-fill, purge, connection and bundle cache counters kept elsewhere, and the process's memory.
struct MetricsRoute: Sendable {
    let metrics: DepotMetrics
    let tokens: BearerTokenDigests
    let ledger: any Ledger
    let purges: PurgeCounters
    let edgeFills: EdgeFillCounter
    let connections: ConnectionGate
    /// What the local cache of the object store's bundles did, when bundles are shared through one.
    let bundleCache: (@Sendable () -> BundleCacheCounts)?
    /// How many of the catalog's bundles could not be fetched from the object store, and how many built here wait to
    /// be sent to it, when bundles are shared through one.
    var replicaBacklog: (@Sendable () -> ReplicaBacklog)? = nil
    let logger: Logger
    /// The data directory's free-space floor, sampled into `depot_disk_*`; nil: not sampled.
    var floor: StorageFloor? = nil
    /// Decides readiness, recording `depot_ready` and `depot_ledger_available`; nil: left to `/readyz`.
    var readiness: (@Sendable () async -> Void)? = nil

    /// The content type of the Prometheus text exposition format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    func register(on router: Router<DepotRequestContext>) {
        router.get("/metrics") { request, _ in
            try tokens.check(
                request.headers[.authorization],
                missing: DepotError(.metricsTokenRequired, "send Authorization: Bearer METRICS_TOKEN"),
                refused: DepotError(.metricsTokenRefused, "the metrics token is not accepted"))
            await self.sample()
            return Response(
                status: .ok, headers: [.contentType: Self.contentType, .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: self.metrics.render())))
        }
    }

    /// Reads the values that are not counted as they happen.
    func sample() async {
        do {
            let counts = try await ledger.storeJobCounts()
            for state in [StoreJob.State.pending, .failed] {
                metrics.appleOutboxJobs(state: state.rawValue, count: counts[state] ?? 0)
            }
        } catch {
            // The scrape still answers: the outbox gauges keep their last values.
            logger.warning("App Store outbox depth not read for metrics", metadata: ["error": "\(error.message)"])
        }
        do {
            // Bought between three days and two days ago: Google refunds them within a day unless acknowledged.
            let now = Int64(Date().timeIntervalSince1970) * 1000
            let near = try await ledger.pendingGooglePlayPurchases(purchasedFrom: now - 3 * 86_400_000, until: now - 2 * 86_400_000)
            metrics.googlePlayDeadlineNear(count: near)
        } catch {
            logger.warning("unconfirmed Google Play purchases not counted for metrics", metadata: ["error": "\(error.message)"])
        }
        metrics.mirror(purges: purges, edgeFills: edgeFills)
        metrics.mirror(connections: connections)
        if let bundleCache { metrics.mirror(bundleCache: bundleCache()) }
        if let backlog = replicaBacklog?() {
            metrics.bundlesUnfetchable(count: backlog.unfetchable)
            metrics.bundlesUnsent(count: backlog.unsent)
        }
        metrics.sampleProcess()
        await sampleHealth()
    }
}
