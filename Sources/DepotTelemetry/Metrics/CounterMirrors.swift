import Metrics
import Synchronization

/// Brings swift-metrics counters up to totals that other parts keep as atomics (`EdgeFillCounter`,
/// `PurgeCounters`): each scrape adds what was counted since the last one, so the exposed counter only grows.
package final class CounterMirrors: Sendable {
    private let seen = Mutex<[String: Int]>([:])

    /// Raises the counter `label{dimensions}` to `total`; a total lower than last seen adds nothing.
    package func advance(_ label: String, dimensions: [(String, String)], to total: Int, factory: any MetricsFactory) {
        let key = label + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
        let delta = seen.withLock { seen in
            let before = seen[key] ?? 0
            guard total > before else { return 0 }
            seen[key] = total
            return total - before
        }
        // Created even when nothing changed, so the family is shown from the first scrape on.
        let counter = Counter(label: label, dimensions: dimensions, factory: factory)
        if delta > 0 { counter.increment(by: delta) }
    }
}
