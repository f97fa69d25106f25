import Logging
import Testing

/// The log handler of a test server's service group: passes everything to the test's own handler, and turns the
/// group's note that a graceful shutdown outlasted its bound into a recorded issue naming the service that did
/// not stop, so that a server which does not stop fails its test by name instead of holding the run.
struct ShutdownOverrunReporter: LogHandler {
    /// The handler everything else goes to.
    var wrapped: any LogHandler

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    var logLevel: Logger.Level {
        // The group says it at debug level; the rest stays at the wrapped handler's level (checked below).
        get { .debug }
        set { wrapped.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        if event.message.description.hasPrefix("Graceful shutdown took longer than allowed") {
            let service = event.metadata?["sl-service"].map { "\($0)" } ?? "unknown"
            Issue.record("a test server's graceful shutdown outlasted its bound, waiting for \(service); its group was cancelled")
        }
        guard event.level >= wrapped.logLevel else { return }
        wrapped.log(event: event)
    }
}
