import Metrics
import Prometheus

/// One server's metrics: recorded through swift-metrics' `Counter`, `Timer`, `Meter` and `Gauge` against a
/// Prometheus registry of this server's own, and rendered as Prometheus text by `GET /metrics`.
///
/// The registry is per server, not the process-wide `MetricsSystem`, so several servers in one process (the
/// tests) each count their own traffic. Names and labels:
///
/// | family | type | labels |
/// |---|---|---|
/// | `depot_http_requests_total` | counter | `route`, `method`, `status` (routed answers, and the byte path's through `BytePathRequestCounters`) |
/// | `depot_http_request_duration_seconds` | histogram | `route`, `method` |
/// | `depot_bundle_responses_total`, `depot_bundle_bytes_total` | counter | `via` (`grant`, `edge`) |
/// | `depot_served_events_dropped_total` | counter | |
/// | `depot_served_ranges_unrecorded_total` | counter | `reason` (`share`, `bound`) |
/// | `depot_served_backlog` | gauge | |
/// | `depot_downloads_in_flight` | gauge | |
/// | `depot_redeems_total`, `depot_finishes_total` | counter | `outcome` (`ok` or the error code) |
/// | `depot_verification_failures_total` | counter | `code` |
/// | `depot_bundle_build_duration_seconds` | histogram | `kind` (`full`, `delta`) |
/// | `depot_ledger_operation_duration_seconds` | histogram | `operation` (the ledger method) |
/// | `depot_apple_outbox_jobs` | gauge | `state` (`pending`, `failed`) |
/// | `depot_google_play_unconfirmed_near_deadline` | gauge | |
/// | `depot_google_play_unacknowledged_voids_total` | counter | |
/// | `depot_purge_queue_depth` | gauge | |
/// | `depot_purges_total` | counter | `outcome` (`queued`, `sent`, `failed_attempt`, `abandoned`, `dropped`) |
/// | `depot_bundles_unfetchable` | gauge | |
/// | `depot_bundles_unsent` | gauge | |
/// | `depot_connections_open` | gauge | |
/// | `depot_connections_total` | counter | `outcome` (`admitted`, `refused_total`, `refused_per_address`) |
/// | `process_resident_memory_bytes`, `process_open_fds` | gauge | |
/// | `depot_heap_bytes` | gauge | `state` (`in_use`, `free`: the C allocator's live and kept-free bytes) |
/// | `depot_sqlite_memory_bytes` | gauge | `state` (`in_use`, `high_water`: SQLite's share of the heap, process-wide) |
package final class DepotMetrics: Sendable {
    /// The registry `GET /metrics` renders.
    package let registry: PrometheusCollectorRegistry
    /// The swift-metrics backend writing into `registry`.
    package let factory: PrometheusMetricsFactory
    /// Bundle downloads being written now (counted by `BundleChannelHandler` from the answer to its write's end).
    package let downloadsInFlight: Meter
    /// Bundle answers sent under a purchase's grant, and their body bytes: made once, since the byte path counts
    /// every answer and a lookup in the registry costs more than the count.
    let grantResponses: Metrics.Counter
    let grantBytes: Metrics.Counter
    /// Grant answers whose served bytes were dropped (counted on the byte path, as the answers are) and the
    /// backlog the served-bytes writer last found: made once, like the grant counters.
    let servedDropCounter: Metrics.Counter
    let servedBacklogGauge: Metrics.Gauge
    /// Served ranges left out of one transaction's coverage: over its share of the recorder's queue, or past the
    /// intervals the ledger keeps for a bundle.
    let servedShareCounter: Metrics.Counter
    let servedBoundCounter: Metrics.Counter
    /// Counters kept elsewhere as atomics, brought up to date when scraped.
    package let mirrors = CounterMirrors()
    /// The handles of the families recorded per request, kept once made.
    let handles: MetricHandles

    /// Names of the metric families, shared by the code that records and the tests that read.
    package enum Name {
        /// Routed requests by route, method and status.
        package static let requests = "depot_http_requests_total"
        /// Routed request durations.
        package static let requestDuration = "depot_http_request_duration_seconds"
        /// Bundle answers that sent bytes, by who was admitted (`grant`, `edge`).
        package static let bundleResponses = "depot_bundle_responses_total"
        /// Bundle body bytes sent, by who was admitted.
        package static let bundleBytes = "depot_bundle_bytes_total"
        /// Grant answers whose served bytes were not recorded because the recorder's queue was full.
        package static let servedEventsDropped = "depot_served_events_dropped_total"
        /// Served ranges left out of one transaction's coverage, by `reason`: `share` (the transaction had its share
        /// of the recorder's queue and the range touched none of its merged ones), `bound` (its bundle's coverage
        /// held `ServedRange.storedIntervalLimit` intervals the range touched none of).
        package static let servedRangesUnrecorded = "depot_served_ranges_unrecorded_total"
        /// The grant answers waiting for the ledger when the served-bytes writer last took them.
        package static let servedBacklog = "depot_served_backlog"
        /// Bundle answers whose bytes are being written now.
        package static let downloadsInFlight = "depot_downloads_in_flight"
        /// Redeems by outcome.
        package static let redeems = "depot_redeems_total"
        /// Bundles offered by redeems and restores, by content and version: how far a rollout reached.
        package static let versionOffers = "depot_version_offers_total"
        /// Deliveries apps confirmed by finishing, by content and version: how many buyers have a version.
        package static let versionDeliveries = "depot_version_deliveries_total"
        /// Finishes by outcome.
        package static let finishes = "depot_finishes_total"
        /// Signed data refused, by verification error code.
        package static let verificationFailures = "depot_verification_failures_total"
        /// Time to build a bundle (a cache hit included), by kind.
        package static let bundleBuild = "depot_bundle_build_duration_seconds"
        /// Time of one ledger call, by operation.
        package static let ledgerOperation = "depot_ledger_operation_duration_seconds"
        /// App Store Server API outbox jobs not settled, by state.
        package static let appleOutboxJobs = "depot_apple_outbox_jobs"
        /// Google Play purchases not completed at Google whose acknowledgement deadline is less than a day away.
        package static let googlePlayDeadlineNear = "depot_google_play_unconfirmed_near_deadline"
        /// Google Play purchases Google refunded because nobody acknowledged them in time (voided reason 8).
        package static let googlePlayUnacknowledgedVoids = "depot_google_play_unacknowledged_voids_total"
        /// Purges queued for the purge hook and not yet sent or given up on.
        package static let purgeQueueDepth = "depot_purge_queue_depth"
        /// Purges by what became of them.
        package static let purges = "depot_purges_total"
        /// Object store calls, by `operation` (`upload`, `download`) and `outcome`.
        package static let objectStoreCalls = "depot_object_store_calls_total"
        /// Bytes moved to and from the object store, by `operation`.
        package static let objectStoreBytes = "depot_object_store_bytes_total"
        /// How long object store calls took, by `operation`.
        package static let objectStoreCallDuration = "depot_object_store_call_duration_seconds"
        /// Bundle files opened for serving by `result`: `hit` (on this disk) or `miss` (fetched from the object store).
        package static let bundleCacheLookups = "depot_bundle_cache_lookups_total"
        /// Bundle files removed from this disk to keep the local cache within `storage.localCacheBytes`.
        package static let bundleCacheEvictions = "depot_bundle_cache_evictions_total"
        /// Bytes of the bundle files removed to keep the local cache within its budget.
        package static let bundleCacheEvictedBytes = "depot_bundle_cache_evicted_bytes_total"
        /// Bytes of bundle files the local cache holds.
        package static let bundleCacheBytes = "depot_bundle_cache_bytes"
        /// Bundles of the catalog this instance could not fetch from the object store at its last attempt.
        package static let bundlesUnfetchable = "depot_bundles_unfetchable"
        package static let bundlesUnsent = "depot_bundles_unsent"
        /// Connections open now.
        package static let connectionsOpen = "depot_connections_open"
        /// Connections by what the connection gate decided.
        package static let connections = "depot_connections_total"
        /// The process's resident set size (the name Prometheus clients give it).
        package static let residentMemory = "process_resident_memory_bytes"
        /// The process's open file descriptors (the name Prometheus clients give it).
        package static let openFileDescriptors = "process_open_fds"
        /// The C allocator's bytes by state, live or kept free.
        package static let heap = "depot_heap_bytes"
        /// The heap bytes SQLite holds (page caches, statements), now and at most, by state.
        package static let sqliteMemory = "depot_sqlite_memory_bytes"
    }

    /// Creates empty metrics with their own registry.
    package init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Bundle builds take from milliseconds (a cache hit) to minutes (gigabytes to deflate).
        factory.durationHistogramBuckets[Name.bundleBuild] = [
            .milliseconds(10), .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5), .seconds(15),
            .seconds(60), .seconds(300),
        ]
        // Ledger calls: a fraction of a millisecond (SQLite reads) to a second (a loaded PostgreSQL).
        factory.durationHistogramBuckets[Name.ledgerOperation] = [
            .microseconds(250), .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100),
            .milliseconds(500), .seconds(2),
        ]
        self.factory = factory
        handles = MetricHandles(factory: factory)
        downloadsInFlight = Meter(label: Name.downloadsInFlight, factory: factory)
        let grant = [("via", BundleAudience.grant.rawValue)]
        grantResponses = Metrics.Counter(label: Name.bundleResponses, dimensions: grant, factory: factory)
        grantBytes = Metrics.Counter(label: Name.bundleBytes, dimensions: grant, factory: factory)
        servedDropCounter = Metrics.Counter(label: Name.servedEventsDropped, factory: factory)
        servedBacklogGauge = Metrics.Gauge(label: Name.servedBacklog, factory: factory)
        servedShareCounter = Metrics.Counter(
            label: Name.servedRangesUnrecorded, dimensions: [("reason", "share")], factory: factory)
        servedBoundCounter = Metrics.Counter(
            label: Name.servedRangesUnrecorded, dimensions: [("reason", "bound")], factory: factory)
        // Families that every scrape shows, even before anything happened.
        downloadsInFlight.set(0)
        Gauge(label: Name.purgeQueueDepth, factory: factory).record(0)
        servedDropCounter.increment(by: 0)
        servedBacklogGauge.record(0)
        servedShareCounter.increment(by: 0)
        servedBoundCounter.increment(by: 0)
    }

    /// The Prometheus text exposition of every metric.
    package func render() -> [UInt8] { registry.emitToBuffer() }
}
