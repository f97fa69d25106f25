import DepotAPI
import DepotLedger
import DepotOrigin
import Logging
import ServiceLifecycle
import Synchronization

/// Carries "these bytes of this bundle were served for this transaction" from the event loops to the
/// ledger without ever blocking the byte path: events queue in memory (bounded) and one task writes them.
///
/// The writer takes every event waiting at once, merges each bundle's ranges of a transaction (`ServedRange.coalesced`)
/// and writes them in ledger transactions of up to `batchLimit` ranges: one durable commit for many answers, so the
/// writer keeps up with the byte path (a commit per range could not: the queue grew under a steady download load), and
/// the queue stays short.
package final class ServedBytesRecorder: ServedBytesRecording, Service, Sendable {
    /// The most ranges written in one ledger transaction: enough to spread a commit over many answers, few enough
    /// that the transaction holds the ledger's write lock for milliseconds, not longer.
    package static let batchLimit = 256

    private struct Queue {
        var events: [ServedBytes] = []
        /// Whether the queue has been full since it was last emptied (one warning per episode, not per event).
        var overflowing = false
    }

    private let queue = Mutex(Queue())
    private let capacity: Int
    /// Rings when an event is queued; holds at most one ring, since the writer takes everything queued.
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation
    private let ledger: any Ledger
    private let logger: Logger
    /// Where each response's bytes are counted (`depot_bundle_bytes_total{via="grant"}`) as it is queued, and the
    /// events dropped and the backlog the writer finds.
    private let metrics: DepotMetrics?

    /// Creates a recorder writing to `ledger`; at most `capacity` events wait (events arriving at a full queue are
    /// dropped, counted and logged).
    package init(ledger: any Ledger, logger: Logger, metrics: DepotMetrics? = nil, capacity: Int = 100_000) {
        self.metrics = metrics
        self.capacity = max(1, capacity)
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.ledger = ledger
        self.logger = logger
    }

    /// Queues an event and counts its bytes; never waits.
    package func record(_ event: ServedBytes) {
        metrics?.grantDownload(bytes: event.ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) })
        let (queued, firstDrop) = queue.withLock { queue -> (Bool, Bool) in
            guard queue.events.count < capacity else {
                defer { queue.overflowing = true }
                return (false, !queue.overflowing)
            }
            queue.events.append(event)
            return (true, false)
        }
        if queued {
            ring.yield()
        } else {
            metrics?.servedEventDropped()
            if firstDrop {
                logger.warning(
                    "served-bytes queue full: answers' coverage is not recorded until the ledger catches up",
                    metadata: ["capacity": "\(capacity)"])
            }
        }
    }

    /// The events waiting to be written now.
    package var waitingCount: Int {
        queue.withLock { $0.events.count }
    }

    /// Writes queued events until shutdown, then the ones still queued.
    package func run() async throws {
        await withGracefulShutdownHandler {
            for await _ in doorbell {
                await writeWaiting()
            }
            // Shutting down: what arrived during the last write too, until nothing is left (a few passes at most: the
            // byte path stops before the services do, so nothing should arrive by then).
            var passes = 0
            while passes < 4, await writeWaiting() > 0 { passes += 1 }
        } onGracefulShutdown: {
            self.ring.finish()
        }
    }

    /// Takes every waiting event and writes their ranges, `batchLimit` to a ledger transaction; returns how many
    /// events it took.
    @discardableResult
    private func writeWaiting() async -> Int {
        let events = queue.withLock { queue -> [ServedBytes] in
            let waiting = queue.events
            queue.events = []
            queue.overflowing = false
            return waiting
        }
        metrics?.servedBacklog(events.count)
        guard !events.isEmpty else { return 0 }
        // A bundle's ranges of one transaction, merged: a client asking for the same bytes over and over costs one
        // range per take, so it cannot crowd out other buyers' evidence.
        let ranges = ServedRange.coalesced(
            events.flatMap { event in
                event.ranges.map {
                    ServedRange(transactionId: event.transactionId, digest: event.digest, range: $0, client: event.client, at: event.at)
                }
            })
        var start = 0
        while start < ranges.count {
            let end = min(ranges.count, start + Self.batchLimit)
            await write(Array(ranges[start..<end]))
            start = end
        }
        return events.count
    }

    /// Writes `ranges` in one ledger transaction; when that fails for another reason than the ledger being
    /// unavailable, each alone, so that a range the ledger refuses costs only itself. (An unavailable ledger, a busy
    /// timeout or a lost database connection, would fail each of them again, a timeout at a time.)
    private func write(_ ranges: [ServedRange]) async {
        let firstError: LedgerError
        do {
            try await ledger.recordServed(ranges)
            return
        } catch {
            firstError = error
        }
        var lost = ranges.count
        if ranges.count > 1, !firstError.isUnavailable {
            lost = 0
            for range in ranges {
                do { try await ledger.recordServed([range]) } catch { lost += 1 }
            }
        }
        if lost > 0 {
            logger.warning(
                "served bytes not recorded",
                metadata: ["ranges": "\(lost)", "of": "\(ranges.count)", "error": "\(firstError.message)"])
        }
    }
}
