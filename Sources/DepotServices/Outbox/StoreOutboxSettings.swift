/// How the outbox of store calls (Finish Transaction, Google Play acknowledgements) is worked through.
package struct StoreOutboxSettings: Sendable {
    /// Milliseconds between two looks for due jobs.
    package var pollIntervalMilliseconds: Int
    /// Most jobs one instance claims at once.
    package var batchSize: Int
    /// Seconds a claimed job stays with its sender; past it (the sender died), another one claims it again.
    package var leaseSeconds: Int64
    /// The first retry waits up to this many seconds (full jitter); each later one doubles it.
    package var baseDelaySeconds: Double
    /// The longest wait between two attempts, unless the store's `Retry-After` asks for longer.
    package var maxDelaySeconds: Double
    /// Seconds after enqueueing during which a job is retried; then it is marked failed for operators.
    package var retryPeriodSeconds: Int64

    /// Outbox settings.
    package init(
        pollIntervalMilliseconds: Int, batchSize: Int, leaseSeconds: Int64, baseDelaySeconds: Double, maxDelaySeconds: Double,
        retryPeriodSeconds: Int64
    ) {
        self.pollIntervalMilliseconds = pollIntervalMilliseconds
        self.batchSize = batchSize
        self.leaseSeconds = leaseSeconds
        self.baseDelaySeconds = baseDelaySeconds
        self.maxDelaySeconds = maxDelaySeconds
        self.retryPeriodSeconds = retryPeriodSeconds
    }
}
