import Hummingbird
import Logging
import ServiceLifecycle

/// Running a local double of a store's API (`depot dev appstore`, `depot dev googleplay`) for the length of a
/// piece of work.
package enum LocalDoubleServer {
    /// Serves the application `makeApplication` builds on a free loopback port (it is given port 0 and the
    /// callback that learns the bound port) while `body` runs with its base URL (`http://127.0.0.1:PORT`), then
    /// shuts it down gracefully.
    package static func withRunning<App: ApplicationProtocol, T>(
        logger: Logger, makeApplication: (_ onRunning: @escaping @Sendable (Int) async -> Void) -> App,
        _ body: (String) async throws -> T
    ) async throws -> T {
        let (ports, sink) = AsyncStream.makeStream(of: Int.self)
        let app = makeApplication { port in sink.yield(port) }
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        // The port stream ends with the group: a server that stops before it listens ends the wait for its port
        // (and its error is thrown below) instead of leaving it waiting for ever.
        let task = Task {
            defer { sink.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw CancellationError()
        }
        let result: T
        do {
            result = try await body("http://127.0.0.1:\(port)")
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await task.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await task.value
        return result
    }
}
