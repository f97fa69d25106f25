import DepotLedger
import DepotOrigin
import DepotServices
import Metrics

/// Values read when scraped rather than counted as they happen.
extension DepotMetrics {
    /// Sets the number of App Store outbox jobs in `state`.
    package func appleOutboxJobs(state: String, count: Int) {
        Gauge(label: Name.appleOutboxJobs, dimensions: [("state", state)], factory: factory).record(count)
    }

    /// Sets the number of Google Play purchases nobody confirmed whose three-day deadline is less than a day away.
    package func googlePlayDeadlineNear(count: Int) {
        Gauge(label: Name.googlePlayDeadlineNear, factory: factory).record(count)
    }

    /// Counts a Google Play purchase Google refunded because nobody acknowledged it within three days (voided reason
    /// 8): a delivery Depot or the app failed to confirm in time.
    package func googlePlayUnacknowledgedVoid() {
        Counter(label: Name.googlePlayUnacknowledgedVoids, factory: factory).increment()
    }

    /// Brings the connection counters and the open connections up to what the gate counted.
    package func mirror(connections gate: ConnectionGate) {
        let counts = gate.counts
        Gauge(label: Name.connectionsOpen, factory: factory).record(counts.open)
        let outcomes = [
            ("admitted", counts.admitted), ("refused_total", counts.refusedTotal),
            ("refused_per_address", counts.refusedPerAddress),
        ]
        for (outcome, total) in outcomes {
            mirrors.advance(Name.connections, dimensions: [("outcome", outcome)], to: total, factory: factory)
        }
    }

    /// Brings the purge and edge-fill counters and the purge queue's depth up to what their atomics say.
    package func mirror(purges: PurgeCounters, edgeFills: EdgeFillCounter) {
        let outcomes = [
            ("queued", purges.queuedPurges), ("sent", purges.sentPurges), ("failed_attempt", purges.failedAttempts),
            ("abandoned", purges.abandonedPurges), ("dropped", purges.droppedPurges),
        ]
        for (outcome, total) in outcomes {
            mirrors.advance(Name.purges, dimensions: [("outcome", outcome)], to: total, factory: factory)
        }
        // Waiting, or being sent: every purge queued and not yet sent or given up on.
        let depth = max(0, purges.queuedPurges - purges.sentPurges - purges.abandonedPurges)
        Gauge(label: Name.purgeQueueDepth, factory: factory).record(depth)
        let edge = [("via", BundleAudience.edge.rawValue)]
        mirrors.advance(Name.bundleResponses, dimensions: edge, to: edgeFills.answerCount, factory: factory)
        mirrors.advance(Name.bundleBytes, dimensions: edge, to: edgeFills.byteCount, factory: factory)
    }

    /// Sets the process's memory and descriptor gauges to what the system says now, and SQLite's share of the heap.
    package func sampleProcess() {
        let sqlite = SQLiteMemory.read()
        Gauge(label: Name.sqliteMemory, dimensions: [("state", "in_use")], factory: factory).record(sqlite.inUseBytes)
        Gauge(label: Name.sqliteMemory, dimensions: [("state", "high_water")], factory: factory).record(sqlite.highWaterBytes)
        guard let memory = ProcessMemory.read() else { return }
        Gauge(label: Name.residentMemory, factory: factory).record(memory.residentBytes)
        Gauge(label: Name.openFileDescriptors, factory: factory).record(memory.openFileDescriptors)
        Gauge(label: Name.heap, dimensions: [("state", "in_use")], factory: factory).record(memory.heapInUseBytes)
        Gauge(label: Name.heap, dimensions: [("state", "free")], factory: factory).record(memory.heapFreeBytes)
    }
}
