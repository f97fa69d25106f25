import Logging
import ServiceLifecycle
import Testing

/// One server run in a service group of its own, started and awaited until it listens: the test servers, the
/// purge receiver, the shared instances.
struct ListeningGroup {
    /// The group running the server.
    let group: ServiceGroup
    /// The task running the group; it ends when the server stopped.
    let task: Task<Void, any Error>
    /// The port the server listens on.
    let port: Int
    /// How long a graceful shutdown may take before the group cancels the server.
    var shutdownBound: Duration = Self.shutdownBound

    /// How long a graceful shutdown may take before the group cancels its server, and the test that stops it
    /// records an issue naming the service that did not stop. Far beyond what a stop takes on a loaded machine
    /// (a server's own grace for open connections is 5 to 30 s): a bound on a defect, never on speed.
    static let shutdownBound: Duration = .seconds(180)

    /// Runs the server `make` returns in a group of its own and waits until it listens. `make` is handed the
    /// callback the server calls with its port once it listens. The ports' stream ends with the group, so a
    /// server that stops before it listens makes this throw its error instead of waiting for ever.
    static func start(
        logger: Logger, shutdownBound: Duration = Self.shutdownBound, _ make: (@escaping @Sendable (Int) async -> Void) -> any Service
    ) async throws -> ListeningGroup {
        let (ports, sink) = AsyncStream.makeStream(of: Int.self)
        let service = make { port in sink.yield(port) }
        let reporting = Logger(label: logger.label) { _ in ShutdownOverrunReporter(wrapped: logger.handler) }
        var configuration = ServiceGroupConfiguration(services: [service], gracefulShutdownSignals: [], logger: reporting)
        configuration.maximumGracefulShutdownDuration = shutdownBound
        let group = ServiceGroup(configuration: configuration)
        let task = Task {
            defer { sink.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            // The group ended without an error and without listening.
            throw CancellationError()
        }
        return ListeningGroup(group: group, task: task, port: port, shutdownBound: shutdownBound)
    }

    /// How long a stop waits for the group once it has cancelled its server (after `shutdownBound`): a server that
    /// does not end even then is left running and recorded as an issue, so that one stuck server fails its test by
    /// name and the run goes on, instead of holding the whole run until it is stopped from outside.
    static let afterCancellationBound: Duration = .seconds(60)

    /// Shuts the server down gracefully and waits for it; its error is thrown.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await Self.end(of: task, within: shutdownBound + Self.afterCancellationBound)
    }

    /// Shuts the server down gracefully and waits for it, after a failure that is what the test reports.
    func stopAfterFailure() async {
        await group.triggerGracefulShutdown()
        _ = try? await Self.end(of: task, within: shutdownBound + Self.afterCancellationBound)
    }

    /// Waits for `task`'s value, for at most `bound`: past it, an issue is recorded and the task is left running.
    static func end(of task: Task<Void, any Error>, within bound: Duration) async throws {
        let outcome = await withTaskGroup(of: Result<Void, any Error>?.self) { group in
            group.addTask { await task.result }
            group.addTask {
                try? await Task.sleep(for: bound)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let outcome else {
            Issue.record("a test server did not stop within \(bound), even after its group was cancelled; it is left running")
            return
        }
        try outcome.get()
    }
}
