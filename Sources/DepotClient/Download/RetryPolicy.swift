/// How a download retries an attempt that did not bring the bundle further (a broken connection, a body
/// shorter than promised, a 416): at most `attempts` such attempts in a row, then a typed error; before each
/// retry it waits `delaySeconds`, doubled after each further failure, never more than `maxDelaySeconds`.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in a row that made no progress before giving up (at least one).
    public var attempts: Int
    /// The wait after the first failure; each further failure in a row doubles it.
    public var delaySeconds: Double
    /// The longest wait between two attempts.
    public var maxDelaySeconds: Double

    /// Five attempts, waiting half a second, then one, two and four seconds, never more than 30 seconds.
    public init(attempts: Int = 5, delaySeconds: Double = 0.5, maxDelaySeconds: Double = 30) {
        self.attempts = attempts
        self.delaySeconds = delaySeconds
        self.maxDelaySeconds = maxDelaySeconds
    }

    /// The wait before the next attempt after `failures` attempts in a row without progress (a progressing
    /// attempt that still did not finish counts as one): `delaySeconds × 2^(failures − 1)`, capped.
    public func delay(afterFailures failures: Int) -> Double {
        let cap = maxDelaySeconds.isFinite ? max(0, maxDelaySeconds) : 0
        var delay = delaySeconds.isFinite ? min(max(0, delaySeconds), cap) : 0
        var doublings = max(0, failures - 1)
        while doublings > 0, delay > 0, delay < cap {
            delay = min(delay * 2, cap)
            doublings -= 1
        }
        return delay
    }
}
