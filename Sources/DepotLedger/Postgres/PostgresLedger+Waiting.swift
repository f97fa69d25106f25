import Logging
import PostgresNIO

extension PostgresLedger {
    /// Waits until the server `url` names accepts a connection, trying again with a growing pause (half a second,
    /// doubling to five) and logging each failure, for at most `bound` (nil: without end). A server that answers
    /// with an error of its own (a wrong password, a missing database) fails at once: waiting would not mend it.
    package static func waitForServer(url: PostgresURL, bound: Duration?, logger: Logger) async throws(LedgerError) {
        let clock = ContinuousClock()
        let start = clock.now
        var pause: Duration = .milliseconds(500)
        var attempt = 1
        while true {
            do {
                let configuration = try url.connectionConfiguration(connectTimeout: .seconds(5))
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                try? await connection.close()
                if attempt > 1 { logger.info("PostgreSQL answers", metadata: ["attempts": "\(attempt)"]) }
                return
            } catch {
                guard isConnectionFailure(error) else { throw ledgerError(error, while: "connecting to \(url)") }
                let waited = start.duration(to: clock.now)
                if let bound, waited + pause > bound {
                    throw .unavailable(
                        "connecting to \(url): no answer within \(bound.components.seconds) s (\(attempt) attempts)")
                }
                logger.warning(
                    "PostgreSQL cannot be reached yet; waiting",
                    metadata: [
                        "url": "\(url)", "attempt": "\(attempt)", "error": "\(String(reflecting: underlying(error)))",
                    ])
                try? await Task.sleep(for: pause)
                if Task.isCancelled { throw .unavailable("connecting to \(url): cancelled while waiting") }
                pause = min(pause * 2, .seconds(5))
                attempt += 1
            }
        }
    }
}
