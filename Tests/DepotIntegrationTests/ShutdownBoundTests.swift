import Logging
import ServiceLifecycle
import Testing

@testable import DepotServerTestSupport

/// A test server whose service does not stop on a graceful shutdown fails its test by name, and the stop returns.
@Suite("The bound on a test server's shutdown")
struct ShutdownBoundTests {
    /// Listens at once, then ignores the graceful shutdown and ends only when cancelled.
    struct DeafService: Service {
        let ready: @Sendable (Int) async -> Void

        func run() async throws {
            await ready(1)
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    @Test func aServiceThatIgnoresTheShutdownIsNamedAndCancelled() async throws {
        var logger = Logger(label: "depot-test")
        logger.logLevel = .warning
        // The issue is recorded from the group's task, which takes the test's context when it starts: inside.
        try await withKnownIssue {
            let running = try await ListeningGroup.start(logger: logger, shutdownBound: .milliseconds(300)) { ready in
                DeafService(ready: ready)
            }
            #expect(running.port == 1)
            await running.stopAfterFailure()
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("DeafService") }
        }
    }
}
