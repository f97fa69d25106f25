import Hummingbird
import Logging
import ServiceLifecycle

extension GooglePlayDouble {
    /// Serves the double on a free loopback port while `body` runs with its base URL (`http://127.0.0.1:PORT`;
    /// the token endpoint is that plus `/token`), then shuts it down gracefully. The service account's key file,
    /// when it has one, is rewritten first with that token URI.
    package func withRunning<T>(logger: Logger = GooglePlayDouble.quietLogger, _ body: (String) async throws -> T) async throws -> T {
        let (ports, sink) = AsyncStream.makeStream(of: Int.self)
        let app = makeApplication(port: 0, logger: logger) { port in sink.yield(port) }
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
            let baseURL = GooglePlayDoubleSetup.baseURL(host: "127.0.0.1", port: port)
            try serviceAccount.writeKeyFile(tokenURI: GooglePlayDoubleSetup.tokenURL(baseURL: baseURL))
            result = try await body(baseURL)
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await task.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await task.value
        return result
    }

    /// A logger that passes errors only, for tests.
    package static let quietLogger: Logger = {
        var logger = Logger(label: "depot.googleplay-double")
        logger.logLevel = .error
        return logger
    }()
}
