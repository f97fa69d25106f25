import Logging
import Synchronization

/// The purges waiting for the purge hook, at most `edge.purge.queueCapacity` of them.
///
/// A change (a publish, a revocation) hands its purge here and goes on at once: `submit` never waits and
/// never fails the change. `PurgeWorker` takes the purges in order and sends them. When the queue is full a
/// new purge is dropped and logged (the edges then keep stale answers until they expire on their own).
package final class PurgeQueue: Sendable {
    /// The waiting purges, in order.
    package let purges: AsyncStream<PurgeRequest>
    private let continuation: AsyncStream<PurgeRequest>.Continuation
    private let stopping = Atomic<Bool>(false)
    private let isEnabled: Bool
    private let logger: Logger
    /// What happened to the purges so far.
    package let counters = PurgeCounters()

    /// A queue that holds at most `capacity` purges.
    package init(capacity: Int, logger: Logger) {
        (purges, continuation) = AsyncStream.makeStream(of: PurgeRequest.self, bufferingPolicy: .bufferingOldest(capacity))
        isEnabled = true
        self.logger = logger
    }

    private init(disabledWith logger: Logger) {
        (purges, continuation) = AsyncStream.makeStream(of: PurgeRequest.self, bufferingPolicy: .bufferingOldest(1))
        continuation.finish()
        isEnabled = false
        self.logger = logger
    }

    /// A queue that takes nothing: no purge hook is configured.
    package static func disabled(logger: Logger) -> PurgeQueue { PurgeQueue(disabledWith: logger) }

    /// Queues a purge for the hook; a purge without tags is no purge.
    package func submit(_ purge: PurgeRequest) {
        guard isEnabled, !purge.tags.isEmpty else { return }
        switch continuation.yield(purge) {
        case .enqueued:
            counters.queued()
        case .dropped:
            counters.dropped()
            logger.error(
                "purge dropped: the purge hook's queue is full, so edges keep what \(purge.reason) changed until it expires",
                metadata: ["tags": "\(purge.tags.joined(separator: " "))"])
        case .terminated:
            counters.dropped()
            logger.warning(
                "purge not sent: the server is stopping", metadata: ["reason": "\(purge.reason)"])
        @unknown default:
            counters.dropped()
        }
    }

    /// Whether the server is stopping: purges still queued get one attempt each, without retries.
    package var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Takes no more purges; the worker sends those already queued and ends.
    package func finish() {
        stopping.store(true, ordering: .relaxed)
        continuation.finish()
    }
}
