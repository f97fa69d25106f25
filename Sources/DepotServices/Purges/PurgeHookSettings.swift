/// Where Depot sends the purge tags of a change (a publish, a rollback, a deleted version, a revoked
/// purchase), and how hard it tries: `edge.purge` in `depot.json`.
package struct PurgeHookSettings: Sendable, Equatable {
    /// What receives a purge.
    package enum Target: Sendable, Equatable {
        /// A program run with the configured arguments followed by the tags, the purge's JSON on its
        /// standard input and `DEPOT_PURGE_REASON` in its environment; exit status 0 is success.
        case command([String])
        /// A URL that receives the purge's JSON in a POST, with these extra header fields; a 2xx is success.
        case url(String, headers: [String: String])
    }

    /// The receiver.
    package var target: Target
    /// Further attempts after a failed one (a nonzero exit, a non-2xx answer, a timeout).
    package var retries: Int
    /// Longest time one attempt may take; a command still running then is killed with its children.
    package var timeoutSeconds: Int
    /// Wait before the first retry, doubled for each further one (up to `maximumBackoffMilliseconds`).
    package var backoffMilliseconds: Int
    /// Most purges waiting to be sent; past it a new purge is dropped with a log line.
    package var queueCapacity: Int

    /// Creates settings; the defaults are 5 retries, 30 seconds per attempt, 1 second before the first
    /// retry and 1000 waiting purges.
    package init(target: Target, retries: Int = 5, timeoutSeconds: Int = 30, backoffMilliseconds: Int = 1000, queueCapacity: Int = 1000) {
        self.target = target
        self.retries = retries
        self.timeoutSeconds = timeoutSeconds
        self.backoffMilliseconds = backoffMilliseconds
        self.queueCapacity = queueCapacity
    }

    /// Most retries accepted in the configuration.
    package static let maximumRetries = 20
    /// Longest attempt accepted in the configuration, in seconds.
    package static let maximumTimeoutSeconds = 600
    /// Longest wait between two attempts, in milliseconds.
    package static let maximumBackoffMilliseconds = 60_000
    /// Largest queue accepted in the configuration.
    package static let maximumQueueCapacity = 100_000
}
