import DepotServices
import Metrics

extension DepotMetrics: ObjectStoreRecorder {
    /// Counts one object store call by operation and outcome, the bytes it moved, and its duration.
    package func objectStoreCall(operation: String, outcome: String, bytes: Int64, duration: Duration) {
        Counter(label: Name.objectStoreCalls, dimensions: [("operation", operation), ("outcome", outcome)], factory: factory)
            .increment()
        if bytes > 0 {
            Counter(label: Name.objectStoreBytes, dimensions: [("operation", operation)], factory: factory).increment(by: bytes)
        }
        Metrics.Timer(label: Name.objectStoreCallDuration, dimensions: [("operation", operation)], factory: factory)
            .record(duration: duration)
    }
}
