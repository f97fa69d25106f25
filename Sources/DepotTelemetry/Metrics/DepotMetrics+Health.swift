import Metrics

/// The gauges an operator's alerts read (`deploy/prometheus/depot-alerts.yml`), set when `/readyz` decides and at
/// each scrape:
///
/// | family | type | labels |
/// |---|---|---|
/// | `depot_ready` | gauge | (1 when `/readyz` last said ready, else 0) |
/// | `depot_ledger_available` | gauge | (1 when the ledger answered readiness's read in time, else 0) |
/// | `depot_disk_free_bytes` | gauge | `path` (the data directory) |
/// | `depot_disk_below_floor` | gauge | (1 while the data directory's free space is below `storage.minFreeBytes`) |
/// | `depot_outbox_oldest_pending_seconds` | gauge | (age of the oldest store call still waiting in the outbox; 0: none) |
extension DepotMetrics.Name {
    /// Whether the instance is ready (1) or not (0), as `/readyz` last decided.
    package static let ready = "depot_ready"
    /// Whether the ledger answered readiness's read (1) or not (0).
    package static let ledgerAvailable = "depot_ledger_available"
    /// Bytes free on the filesystem of a watched directory, by `path`.
    package static let diskFreeBytes = "depot_disk_free_bytes"
    /// Whether the data directory is below its free-space floor (1) or not (0).
    package static let diskBelowFloor = "depot_disk_below_floor"
    /// Seconds since the oldest store call still pending in the outbox was enqueued; 0 when none waits.
    package static let outboxOldestPending = "depot_outbox_oldest_pending_seconds"
}

extension DepotMetrics {
    /// Records what `/readyz` decided.
    package func ready(_ ready: Bool) {
        Gauge(label: Name.ready, factory: factory).record(ready ? 1 : 0)
    }

    /// Records whether the ledger answered readiness's read.
    package func ledgerAvailable(_ available: Bool) {
        Gauge(label: Name.ledgerAvailable, factory: factory).record(available ? 1 : 0)
    }

    /// Records the free bytes under `path` (nil: unknown, the gauge keeps its last value) and whether they are below
    /// the floor.
    package func disk(path: String, freeBytes: Int64?, belowFloor: Bool) {
        if let freeBytes {
            Gauge(label: Name.diskFreeBytes, dimensions: [("path", path)], factory: factory).record(freeBytes)
        }
        Gauge(label: Name.diskBelowFloor, factory: factory).record(belowFloor ? 1 : 0)
    }

    /// Records the age of the oldest pending outbox job (0 when none waits).
    package func outboxOldestPending(seconds: Int64) {
        Gauge(label: Name.outboxOldestPending, factory: factory).record(max(0, seconds))
    }
}
