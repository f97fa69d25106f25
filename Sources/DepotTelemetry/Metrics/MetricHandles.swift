import Metrics
import Prometheus
import Synchronization

/// swift-metrics handles kept per family and label values, made at their first use: making a handle looks its family
/// up in the Prometheus registry (its name and label names validated, its labels sorted and hashed: about 10,000
/// instructions), while recording into a kept one costs a few hundred. A redemption records six (its request's
/// count and duration, its outcome, the version offered, two ledger calls).
///
/// The label values recorded through it are bounded where they are made (route patterns, known methods, statuses,
/// error codes, ledger operations, the catalog's contents and versions), and the registry keeps one series per set
/// of them anyway, so keeping a handle for each adds no growth of its own.
final class MetricHandles: Sendable {
    /// A family and up to three label values (a family's label names are always the same, in the same order): four
    /// strings, short enough to be held inline, hashed without building an array.
    private struct Key: Hashable {
        let label: String
        let first: String
        let second: String
        let third: String

        /// The key of `label` with `dimensions`, nil for more than three of them (such a handle is made each time).
        init?(_ label: String, _ dimensions: [(String, String)]) {
            guard dimensions.count <= 3 else { return nil }
            self.label = label
            first = dimensions.count > 0 ? dimensions[0].1 : ""
            second = dimensions.count > 1 ? dimensions[1].1 : ""
            third = dimensions.count > 2 ? dimensions[2].1 : ""
        }
    }

    private let factory: PrometheusMetricsFactory
    private let counters = Mutex<[Key: Metrics.Counter]>([:])
    private let timers = Mutex<[Key: Metrics.Timer]>([:])

    /// Handles made with `factory`.
    init(factory: PrometheusMetricsFactory) {
        self.factory = factory
    }

    /// The counter of `label` with `dimensions`.
    func counter(_ label: String, _ dimensions: [(String, String)]) -> Metrics.Counter {
        let made = { Metrics.Counter(label: label, dimensions: dimensions, factory: self.factory) }
        guard let key = Key(label, dimensions) else { return made() }
        if let kept = counters.withLock({ $0[key] }) { return kept }
        let handle = made()
        return counters.withLock { counters in
            if let kept = counters[key] { return kept }
            counters[key] = handle
            return handle
        }
    }

    /// The timer of `label` with `dimensions`.
    func timer(_ label: String, _ dimensions: [(String, String)]) -> Metrics.Timer {
        let made = { Metrics.Timer(label: label, dimensions: dimensions, factory: self.factory) }
        guard let key = Key(label, dimensions) else { return made() }
        if let kept = timers.withLock({ $0[key] }) { return kept }
        let handle = made()
        return timers.withLock { timers in
            if let kept = timers[key] { return kept }
            timers[key] = handle
            return handle
        }
    }
}
