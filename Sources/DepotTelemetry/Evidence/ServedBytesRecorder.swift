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
///
/// One transaction cannot take the queue from the others: it queues at most `transactionShare` ranges between two
/// takes; its answers past that are merged into at most `ServedRange.storedIntervalLimit` intervals, and a range
/// touching none of them is left out (counted, `depot_served_ranges_unrecorded_total{reason="share"}`) for that
/// transaction alone. Each take writes the transactions with the fewest ranges first, so a flood's batches queue behind
/// other buyers' evidence, not before it.
package final class ServedBytesRecorder: ServedBytesRecording, Service, Sendable {
    /// The most ranges written in one ledger transaction: enough to spread a commit over many answers, few enough
    /// that the transaction holds the ledger's write lock for milliseconds, not longer.
    package static let batchLimit = 256

    /// The most ranges one transaction queues between two takes, by default: a download of many parts keeps far
    /// below it; past it, its ranges are merged as they arrive.
    package static let defaultTransactionShare = 4_096

    private struct Queue {
        var events: [ServedBytes] = []
        /// The ranges each transaction has in `events`.
        var queuedRanges: [String: Int] = [:]
        /// The ranges of transactions past their share, merged.
        var merged: [String: MergedServedRanges] = [:]
        /// Whether the queue has been full since it was last emptied (one warning per episode, not per event).
        var overflowing = false
        /// Whether a transaction has left ranges out since the queue was last emptied (one warning per episode).
        var leavingOut = false
    }

    private let queue = Mutex(Queue())
    /// Ranges the ledger could not take because it was unavailable, written first at the next take.
    private let retained = Mutex<[ServedRange]>([])
    private let capacity: Int
    private let transactionShare: Int
    /// Rings when an event is queued; holds at most one ring, since the writer takes everything queued.
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation
    private let ledger: any Ledger
    private let logger: Logger
    /// Where each response's bytes are counted (`depot_bundle_bytes_total{via="grant"}`) as it is queued, and the
    /// events dropped and the backlog the writer finds.
    private let metrics: DepotMetrics?

    /// Creates a recorder writing to `ledger`; at most `capacity` events wait (events arriving at a full queue are
    /// dropped, counted and logged), of which at most `transactionShare` ranges of one transaction.
    package init(
        ledger: any Ledger, logger: Logger, metrics: DepotMetrics? = nil, capacity: Int = 100_000,
        transactionShare: Int = ServedBytesRecorder.defaultTransactionShare
    ) {
        self.metrics = metrics
        self.capacity = max(1, capacity)
        self.transactionShare = max(1, transactionShare)
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.ledger = ledger
        self.logger = logger
    }

    /// Queues an event and counts its bytes; never waits.
    package func record(_ event: ServedBytes) {
        metrics?.grantDownload(bytes: event.ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) })
        let share = transactionShare
        let (outcome, firstDrop) = queue.withLock { queue -> (Outcome, Bool) in
            let held = queue.queuedRanges[event.transactionId, default: 0]
            if held + event.ranges.count > share {
                // Past its share: merged with what the transaction already sent past it, not queued as an event.
                var merged =
                    queue.merged[event.transactionId] ?? MergedServedRanges(limit: ServedRange.storedIntervalLimit)
                let leftOut = merged.add(event)
                queue.merged[event.transactionId] = merged
                defer { if leftOut > 0 { queue.leavingOut = true } }
                return (.merged(leftOut: leftOut), leftOut > 0 && !queue.leavingOut)
            }
            guard queue.events.count < capacity else {
                defer { queue.overflowing = true }
                return (.dropped, !queue.overflowing)
            }
            queue.events.append(event)
            queue.queuedRanges[event.transactionId] = held + event.ranges.count
            return (.queued, false)
        }
        switch outcome {
        case .queued:
            ring.yield()
        case .merged(let leftOut):
            ring.yield()
            metrics?.servedRangesOverShare(leftOut)
            if firstDrop {
                logger.warning(
                    "a transaction's served ranges past its share of the queue are not all recorded",
                    metadata: ["transaction": "\(event.transactionId)", "share": "\(share)"])
            }
        case .dropped:
            metrics?.servedEventDropped()
            if firstDrop {
                logger.warning(
                    "served-bytes queue full: answers' coverage is not recorded until the ledger catches up",
                    metadata: ["capacity": "\(capacity)"])
            }
        }
    }

    /// What `record` did with an event.
    private enum Outcome {
        case queued
        case merged(leftOut: Int)
        case dropped
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
        let (events, merged) = queue.withLock { queue -> ([ServedBytes], [String: MergedServedRanges]) in
            let waiting = (queue.events, queue.merged)
            queue.events = []
            queue.queuedRanges = [:]
            queue.merged = [:]
            queue.overflowing = false
            queue.leavingOut = false
            return waiting
        }
        metrics?.servedBacklog(events.count)
        let retried = retained.withLock { retained in
            defer { retained = [] }
            return retained
        }
        guard !events.isEmpty || !merged.isEmpty || !retried.isEmpty else { return 0 }
        // A bundle's ranges of one transaction, merged: a client asking for the same bytes over and over costs one
        // range per take, so it cannot crowd out other buyers' evidence.
        var served = retried
        served += events.flatMap { event in
            event.ranges.map {
                ServedRange(transactionId: event.transactionId, digest: event.digest, range: $0, client: event.client, at: event.at)
            }
        }
        for (transactionId, ranges) in merged.sorted(by: { $0.key < $1.key }) {
            served += ranges.ranges(transactionId: transactionId)
        }
        let ranges = Self.fewestFirst(ServedRange.coalesced(served))
        var start = 0
        while start < ranges.count {
            let end = min(ranges.count, start + Self.batchLimit)
            guard await write(Array(ranges[start..<end])) else {
                // The ledger cannot be reached: this batch and the rest wait for it, and the writer tries again in a
                // second even if no new answer rings.
                retain(Array(ranges[start...]))
                let ring = self.ring
                Task {
                    try? await Task.sleep(for: Self.retryPause)
                    ring.yield()
                }
                break
            }
            start = end
        }
        return events.count + merged.count + retried.count
    }

    /// How long the writer waits before trying an unavailable ledger again.
    static let retryPause: Duration = .seconds(1)

    /// Keeps `ranges` for the next take, at most `capacity` of them in all: beyond it, the ranges of the transactions
    /// holding the most are dropped (and counted), so that one buyer's flood cannot crowd out another's evidence.
    private func retain(_ ranges: [ServedRange]) {
        let dropped = retained.withLock { retained -> Int in
            retained = Self.fewestFirst(ServedRange.coalesced(retained + ranges))
            let excess = max(0, retained.count - capacity)
            if excess > 0 { retained.removeLast(excess) }
            return excess
        }
        for _ in 0..<dropped { metrics?.servedEventDropped() }
    }

    /// `ranges` with the transactions that have the fewest first, each transaction's in their order: a buyer with
    /// a few ranges is written in the first batch of a take, not after another's thousands.
    static func fewestFirst(_ ranges: [ServedRange]) -> [ServedRange] {
        var counts: [String: Int] = [:]
        for range in ranges { counts[range.transactionId, default: 0] += 1 }
        guard counts.count > 1 else { return ranges }
        return ranges.enumerated().sorted { a, b in
            let (countA, countB) = (counts[a.element.transactionId] ?? 0, counts[b.element.transactionId] ?? 0)
            if countA != countB { return countA < countB }
            if a.element.transactionId != b.element.transactionId { return a.element.transactionId < b.element.transactionId }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// Writes `ranges` in one ledger transaction; when that fails for another reason than the ledger being
    /// unavailable, each alone, so that a range the ledger refuses costs only itself. (An unavailable ledger, a busy
    /// timeout or a lost database connection, would fail each of them again, a timeout at a time.)
    /// Returns false, having written nothing, when the ledger is unavailable: the caller keeps the ranges.
    private func write(_ ranges: [ServedRange]) async -> Bool {
        let firstError: LedgerError
        do {
            metrics?.servedRangesBeyondBound(try await ledger.recordServed(ranges))
            return true
        } catch {
            firstError = error
        }
        if firstError.isUnavailable { return false }
        var lost = ranges.count
        if ranges.count > 1, !firstError.isUnavailable {
            lost = 0
            for range in ranges {
                do { metrics?.servedRangesBeyondBound(try await ledger.recordServed([range])) } catch { lost += 1 }
            }
        }
        if lost > 0 {
            logger.warning(
                "served bytes not recorded",
                metadata: ["ranges": "\(lost)", "of": "\(ranges.count)", "error": "\(firstError.message)"])
        }
        return true
    }
}
