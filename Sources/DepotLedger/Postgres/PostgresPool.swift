import Logging
import PostgresNIO
import Synchronization

/// The PostgreSQL connection pool a ledger leases from, replaced by a fresh one when the server is back after an
/// outage.
///
/// postgres-nio's pool backs off between failed connection attempts up to a minute and, after failing for a minute,
/// trips a circuit breaker that fails every lease until a retry succeeds: after a restart of PostgreSQL a server
/// would stay unavailable for up to a minute longer than the database. And connections that were open when the
/// network stopped answering stay leased by the queries that hang on them. So the ledger reports each failure that
/// is not the server's own answer (`noteFailure`); the pool's watch (`run`) then probes the server on a direct
/// connection of its own, once a `probeInterval`, and as soon as the server answers while the pool still fails, it
/// puts a new pool in place and ends the old one (its connections closed, its waiting leases failed).
package final class PostgresPool: Sendable {
    /// How often the watch probes a server the pool failed to reach.
    package static let probeInterval: Duration = .milliseconds(500)

    private struct State {
        var client: PostgresClient
        var runner: Task<Void, Never>?
        /// Counts the pools put in place, the first one included.
        var generation = 1
        /// A failure not followed by a success since (the watch's cue to probe).
        var failing = false
        var closed = false
    }

    private let url: PostgresURL
    private let logger: Logger
    private let state: Mutex<State>
    /// Rings when a failure is noted; holds one ring.
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation

    /// A pool for the database `url` describes. Nothing connects until `start()` (or `run()`) runs it.
    package init(url: PostgresURL, logger: Logger) {
        self.url = url
        self.logger = logger
        state = Mutex(State(client: PostgresClient(configuration: url.configuration, backgroundLogger: logger)))
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The pool in use now.
    package var client: PostgresClient {
        state.withLock { $0.client }
    }

    /// The pool in use now and its generation, read together.
    package var current: (client: PostgresClient, generation: Int) {
        state.withLock { ($0.client, $0.generation) }
    }

    /// How many pools have been put in place (1 until the first replacement).
    package var generation: Int {
        state.withLock { $0.generation }
    }

    /// Starts the current pool's run loop in a task of its own (the pools put in place later get theirs).
    package func start() {
        state.withLock { state in
            guard state.runner == nil, !state.closed else { return }
            let client = state.client
            state.runner = Task.detached { await client.run() }
        }
    }

    /// Notes that a lease or a query on the pool of `generation` failed without the server's answer (refused, reset,
    /// timed out): the watch probes the server and replaces the pool once the server answers. A failure of a pool
    /// already replaced (its last leases fail as it ends) is ignored.
    package func noteFailure(of generation: Int) {
        let current = state.withLock { state in
            guard state.generation == generation else { return false }
            state.failing = true
            return true
        }
        if current { ring.yield() }
    }

    /// Notes that a transaction on the pool of `generation` went through: that pool works.
    package func noteSuccess(of generation: Int) {
        state.withLock { state in
            if state.failing, state.generation == generation { state.failing = false }
        }
    }

    /// Starts the pool and watches it until cancelled (or `shutdown()`): after a noted failure, probes the server
    /// every `probeInterval` until it answers, and then replaces the pool if it still fails.
    package func run() async {
        start()
        for await _ in doorbell {
            await recover()
            if Task.isCancelled { break }
        }
    }

    /// Probes until the server answers or the pool works again, then replaces the pool if it still fails.
    private func recover() async {
        var probes = 0
        while !Task.isCancelled, state.withLock({ $0.failing && !$0.closed }) {
            if await probe() {
                let replaced = replaceIfFailing()
                if replaced {
                    logger.warning(
                        "PostgreSQL answers again: the connection pool is replaced",
                        metadata: ["probes": "\(probes + 1)", "generation": "\(generation)"])
                }
                return
            }
            probes += 1
            if probes == 1 || probes % 20 == 0 {
                logger.warning("PostgreSQL cannot be reached; probing", metadata: ["probes": "\(probes)"])
            }
            try? await Task.sleep(for: Self.probeInterval)
        }
    }

    /// Whether the server accepts a connection and answers `SELECT 1`, within a second or two.
    private func probe() async -> Bool {
        let connection: PostgresConnection
        do {
            let configuration = try url.connectionConfiguration(connectTimeout: .seconds(2))
            connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch {
            return false
        }
        let logger = self.logger
        let answered: Bool?
        do {
            answered = try await WaitBound.run(within: .seconds(2), onExpiry: { _ = connection.close() as EventLoopFuture<Void> }) {
                _ = try await connection.query("SELECT 1", logger: logger)
                return true
            }
        } catch {
            answered = false
        }
        // Closed and waited for: a connection must be closed before it goes.
        try? await connection.close()
        return answered ?? false
    }

    /// Puts a new pool in place if the current one still fails, and ends the old one; true if it did.
    private func replaceIfFailing() -> Bool {
        guard state.withLock({ $0.failing && !$0.closed }) else { return false }
        let fresh = PostgresClient(configuration: url.configuration, backgroundLogger: logger)
        let (replaced, old) = state.withLock { state -> (Bool, Task<Void, Never>?) in
            // Checked again: a success or a shutdown may have come while the new pool was made.
            guard state.failing, !state.closed else { return (false, nil) }
            let old = state.runner
            state.client = fresh
            state.runner = Task.detached { await fresh.run() }
            state.generation += 1
            state.failing = false
            return (true, old)
        }
        old?.cancel()
        return replaced
    }

    /// Ends the watch and the pool in use, waiting at most `bound` for its connections to close; false if they
    /// did not in time.
    @discardableResult
    package func shutdown(within bound: Duration) async -> Bool {
        let runner = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            return state.runner
        }
        ring.finish()
        guard let runner else { return true }
        runner.cancel()
        return await BoundedWait.end(of: runner, within: bound)
    }
}
