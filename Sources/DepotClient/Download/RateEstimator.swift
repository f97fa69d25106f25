/// Estimates a transfer rate from (time, total bytes) samples over a sliding window, and the time left.
///
/// Pure: the caller passes the time, so it can be tested without a clock.
struct RateEstimator: Sendable {
    /// How far back samples count, in seconds.
    let window: Double
    private var samples: [(time: Double, bytes: Int64)] = []

    /// An estimator over the last `window` seconds.
    init(window: Double = 5) {
        self.window = window
    }

    /// Records that `bytes` were on disk at `time` (seconds on any monotonic clock).
    mutating func record(bytes: Int64, at time: Double) {
        if let last = samples.last, bytes < last.bytes { samples.removeAll() }  // restarted from zero
        samples.append((time, bytes))
        // Keep one sample older than the window, so the window is always spanned.
        while samples.count > 2, samples[1].time <= time - window { samples.removeFirst() }
    }

    /// Forgets every sample (after a pause or a broken connection the old pace says nothing).
    mutating func reset() { samples.removeAll() }

    /// Bytes per second, once samples span at least a tenth of a second.
    var bytesPerSecond: Double? {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= 0.1 else { return nil }
        return Double(last.bytes - first.bytes) / (last.time - first.time)
    }

    /// The longest time left reported, about ten years: beyond it (a size no transfer reaches, such as a
    /// server's `Int64.max`) the time is unknown, and a number that large would not fit a display's integers.
    static let longestRemaining: Double = 315_360_000

    /// Seconds until `expected` bytes at the current rate; nil when the rate is unknown or zero, or the time
    /// is longer than ``longestRemaining``.
    func timeRemaining(expected: Int64) -> Double? {
        guard let rate = bytesPerSecond, rate > 0, let last = samples.last else { return nil }
        let (left, overflow) = expected.subtractingReportingOverflow(last.bytes)
        guard !overflow else { return nil }
        let seconds = Double(max(0, left)) / rate
        return seconds.isFinite && seconds <= Self.longestRemaining ? seconds : nil
    }
}
