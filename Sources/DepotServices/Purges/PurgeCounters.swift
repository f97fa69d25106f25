import Synchronization

/// What became of the purges so far: queued, sent, attempts that failed, purges given up on or dropped.
/// Read by operators' tooling and by the tests, which wait on them.
package final class PurgeCounters: Sendable {
    private let queuedCount = Atomic<Int>(0)
    private let sentCount = Atomic<Int>(0)
    private let failedAttemptCount = Atomic<Int>(0)
    private let abandonedCount = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)

    /// Creates counters at zero.
    package init() {}

    /// A purge was queued.
    package func queued() { queuedCount.wrappingAdd(1, ordering: .relaxed) }
    /// A purge was sent.
    package func sent() { sentCount.wrappingAdd(1, ordering: .relaxed) }
    /// An attempt to send a purge failed.
    package func failedAttempt() { failedAttemptCount.wrappingAdd(1, ordering: .relaxed) }
    /// A purge was given up after its attempts.
    package func abandoned() { abandonedCount.wrappingAdd(1, ordering: .relaxed) }
    /// A purge was dropped: the queue was full or stopping.
    package func dropped() { droppedCount.wrappingAdd(1, ordering: .relaxed) }

    /// Purges accepted into the queue.
    package var queuedPurges: Int { queuedCount.load(ordering: .relaxed) }
    /// Purges the hook took (exit 0, or a 2xx answer).
    package var sentPurges: Int { sentCount.load(ordering: .relaxed) }
    /// Attempts that failed: a nonzero exit, a non-2xx answer, a timeout, a receiver that could not be reached.
    package var failedAttempts: Int { failedAttemptCount.load(ordering: .relaxed) }
    /// Purges given up on after their last retry.
    package var abandonedPurges: Int { abandonedCount.load(ordering: .relaxed) }
    /// Purges refused because the queue was full or the server was stopping.
    package var droppedPurges: Int { droppedCount.load(ordering: .relaxed) }
}
