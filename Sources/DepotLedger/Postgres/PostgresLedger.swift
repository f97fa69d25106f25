import DepotCore
import Logging
import PostgresNIO

/// The shared ledger: PostgreSQL through postgres-nio, for several Depot instances working together.
///
/// Lifecycle: postgres-nio's `PostgresClient` only leases connections while its `run()` is active; the ledger's
/// `PostgresPool` runs it and replaces it after an outage. Two ways:
/// - `PostgresLedger.connect(url:logger:)` owns the pool: it migrates over one direct connection (so an unreachable
///   server fails at once), starts the pool and its watch in a detached task of its own, and `shutdown()` ends them
///   (no swift-service-lifecycle needed; `deinit` cancels the watch too, as a safety net).
/// - `PostgresLedger.forServiceGroup(url:logger:)` migrates, then hands back the ledger and its pool's run loop as
///   a `Service` (`PostgresClientService`) for the application's service group, which starts and ends it.
///   `shutdown()` then does nothing.
///
/// Waits: every operation answers within `waitBound` (`ledger.waitSeconds`), failing `unavailable` past it, whether
/// the server refuses connections, accepts them and never answers, or answers slowly.
///
/// Concurrency: every method is one SQL transaction (READ COMMITTED). Read-check-write methods lock the row
/// they decide on (`SELECT ... FOR UPDATE` on the transaction for `finish` and `setRevocation`, the
/// coverage row's upsert for `recordServed`), so instances racing on one transaction serialise there and
/// exactly one `finish` sees it pending. Rows are always locked in the same order (transaction, then
/// deliveries by content id and version); a deadlock or serialization failure is retried a few times.
package final class PostgresLedger: SQLLedger {
    /// The connection pool, replaced by a fresh one when the server answers again after an outage.
    package let pool: PostgresPool
    let logger: Logger
    /// The longest a caller waits for one ledger operation (a lease, its statements and their retries): past it the
    /// operation fails `unavailable`, whatever the server or the network does.
    package let waitBound: Duration
    /// Whether this ledger started its pool (`connect`), and so ends it in `shutdown()`.
    private let ownsPool: Bool

    /// The pool in use now; usable by the owner for its own queries.
    package var client: PostgresClient { pool.client }

    /// Key of the transaction-level advisory lock that serialises migrations across instances.
    static let migrationLockKey: Int64 = 0x4465_706F_744C_6467  // "DepotLdg"
    /// How many times a transaction that hit a deadlock or serialization failure is tried.
    static let attempts = 4
    /// The wait bound when the caller names none: generous, for tools and bulk work; `depot serve` names its own
    /// (`ledger.waitSeconds`, 5 s by default).
    package static let defaultWaitBound: Duration = .seconds(60)

    /// A logger that passes warnings and errors only (postgres-nio logs connection churn at info level), for
    /// tools and tests.
    package static let quietLogger: Logger = {
        var logger = Logger(label: "depot.ledger.postgres")
        logger.logLevel = .warning
        return logger
    }()

    /// Connects to the database at `url`, starts the pool and its watch in a task this ledger owns, and
    /// migrates the schema. Call `shutdown()` when done.
    package static func connect(
        url: String, waitBound: Duration = defaultWaitBound, logger: Logger = Logger(label: "depot.ledger.postgres")
    )
        async throws(LedgerError)
        -> PostgresLedger
    {
        try await connect(url: try PostgresURL(url), waitBound: waitBound, logger: logger)
    }

    /// Connects to the database `url` describes; see `connect(url:waitBound:logger:)`.
    package static func connect(
        url: PostgresURL, waitBound: Duration = defaultWaitBound, logger: Logger = Logger(label: "depot.ledger.postgres")
    )
        async throws(LedgerError) -> PostgresLedger
    {
        try await migrate(url: url, logger: logger)
        let pool = PostgresPool(url: url, logger: logger)
        pool.start()
        let watch = Task.detached { await pool.run() }
        return PostgresLedger(pool: pool, watch: watch, waitBound: waitBound, logger: logger)
    }

    /// Migrates the schema of the database `url` describes on one plain connection of its own rather than through
    /// a pool: an unreachable server fails here at once (a pool would retry quietly for a minute).
    package static func migrate(url: PostgresURL, logger: Logger) async throws(LedgerError) {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try url.connectionConfiguration(), id: 0, logger: logger)
            do {
                try await Self.migrate(on: connection, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        } catch {
            throw Self.ledgerError(error, while: "connecting to \(url)")
        }
    }

    /// A ledger on a new pool for the database `url` describes, migrated, with the pool's run loop and watch as a
    /// service for the caller's service group: the ledger's queries wait until the group runs it, and the group's
    /// graceful shutdown ends it (put it first among the group's services, so that it ends after every service
    /// that uses the ledger).
    package static func forServiceGroup(
        url: PostgresURL, waitBound: Duration = defaultWaitBound, logger: Logger = Logger(label: "depot.ledger.postgres")
    ) async throws(LedgerError) -> (ledger: PostgresLedger, client: PostgresClientService) {
        try await migrate(url: url, logger: logger)
        let pool = PostgresPool(url: url, logger: logger)
        return (
            PostgresLedger(pool: pool, watch: nil, waitBound: waitBound, logger: logger),
            PostgresClientService(pool: pool)
        )
    }

    private let watch: Task<Void, Never>?

    private init(pool: PostgresPool, watch: Task<Void, Never>?, waitBound: Duration, logger: Logger) {
        self.pool = pool
        self.watch = watch
        self.ownsPool = watch != nil
        self.waitBound = waitBound
        self.logger = logger
    }

    deinit {
        watch?.cancel()
    }

    /// How long `shutdown()` waits for the pool's connections to close.
    static let shutdownBound: Duration = .seconds(30)

    /// Stops the pool started by `connect` and waits until its connections are closed, at most `shutdownBound`: a
    /// pool whose run does not end after its cancellation (a connection postgres-nio keeps waiting for) is logged
    /// and left to end with the process, so a server's stop never waits on it for ever. Calls after it fail.
    package func shutdown() async {
        guard ownsPool else { return }
        watch?.cancel()
        guard await pool.shutdown(within: Self.shutdownBound) else {
            logger.warning(
                "the PostgreSQL client did not stop within its bound after cancellation; left to end with the process",
                metadata: ["boundSeconds": "\(Self.shutdownBound.components.seconds)"])
            return
        }
    }

    /// Stops the pool started by `connect`, as `shutdown()` does.
    package func close() async {
        await shutdown()
    }

    // MARK: Running transactions

    /// Runs `body` in one transaction of `kind`, within `waitBound` in all (the lease, the statements and the
    /// retries); past it the connection in use is closed, so that no statement keeps waiting on it, and the call fails
    /// `unavailable`:
    /// - `.write`: a READ COMMITTED transaction, retried on deadlock or serialization failure;
    /// - `.snapshot`: the same, `REPEATABLE READ, READ ONLY`, so that every statement sees one snapshot;
    /// - `.read`: on a leased connection without `BEGIN` (each statement is its own transaction), not retried.
    @discardableResult
    package func transaction<T: Sendable>(
        _ kind: SQLTransactionKind, _ what: String, _ body: @escaping @Sendable (any SQLSession) async throws -> T
    ) async throws(LedgerError) -> T {
        let held = HeldConnection()
        let (client, generation) = pool.current
        let answer: T?
        do {
            let logger = self.logger
            answer = try await WaitBound.run(
                within: waitBound, onExpiry: { held.close() },
                onAbandoned: {
                    logger.error(
                        "a PostgreSQL operation did not end after its connection was closed and it was cancelled; left to end on its own",
                        metadata: ["operation": "\(what)"])
                }
            ) {
                try await self.attempts(kind, what, client, held, body)
            }
        } catch {
            if Self.isConnectionFailure(error) { pool.noteFailure(of: generation) }
            throw Self.ledgerError(error, while: what)
        }
        guard let answer else {
            // A lease that did not come in time says the pool cannot reach the server; a statement that did not answer
            // in time may be a slow one (its connection is closed): the pool is not replaced for it.
            if !held.heldAtExpiry { pool.noteFailure(of: generation) }
            throw .unavailable("\(what): PostgreSQL did not answer within \(waitBound.components.seconds) s")
        }
        pool.noteSuccess(of: generation)
        return answer
    }

    /// Runs `body` as `transaction` says, without its bound, telling `held` which connection it uses.
    private func attempts<T: Sendable>(
        _ kind: SQLTransactionKind, _ what: String, _ client: PostgresClient, _ held: HeldConnection,
        _ body: @escaping @Sendable (any SQLSession) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        if case .read = kind {
            return try await client.withConnection { connection in
                held.hold(connection)
                defer { held.release() }
                try Task.checkCancellation()
                return try await body(PostgresSession(connection: connection, logger: logger))
            }
        }
        var attempt = 1
        while true {
            do {
                // BEGIN is sent on a connection `held` already knows, so that the bound can close it whatever statement
                // waits (postgres-nio's `withTransaction` sends BEGIN before handing the connection over).
                return try await client.withConnection { connection in
                    held.hold(connection)
                    defer { held.release() }
                    try Task.checkCancellation()
                    try await connection.query("BEGIN", logger: logger)
                    do {
                        let session = PostgresSession(connection: connection, logger: logger)
                        if case .snapshot = kind {
                            try await session.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                        }
                        let value = try await body(session)
                        try await connection.query("COMMIT", logger: logger)
                        return value
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: logger)
                        throw error
                    }
                }
            } catch {
                if attempt < Self.attempts, Self.isRetryable(error) {
                    logger.debug(
                        "retrying after a conflict", metadata: ["operation": "\(what)", "attempt": "\(attempt)"])
                    attempt += 1
                    continue
                }
                throw error
            }
        }
    }

    /// Whether `error` says the server could not be reached or stopped answering (rather than the server's own
    /// answer, or the caller's): the pool's watch then probes the server.
    static func isConnectionFailure(_ error: any Error) -> Bool {
        let error = underlying(error)
        if error is LedgerError || error is PostgresDecodingError || error is SQLRowError || error is CancellationError {
            return false
        }
        if let error = error as? PSQLError { return error.serverInfo == nil }
        return true
    }

    static func underlying(_ error: any Error) -> any Error {
        if let error = error as? PostgresTransactionError {
            if let inner = error.closureError ?? error.beginError ?? error.commitError { return underlying(inner) }
        }
        return error
    }

    static func sqlState(_ error: any Error) -> String? {
        (underlying(error) as? PSQLError)?.serverInfo?[.sqlState]
    }

    static func isRetryable(_ error: any Error) -> Bool {
        // 40001 serialization_failure, 40P01 deadlock_detected.
        switch sqlState(error) {
        case "40001", "40P01": true
        default: false
        }
    }

    static func ledgerError(_ error: any Error, while what: String) -> LedgerError {
        let error = underlying(error)
        if let error = error as? LedgerError { return error }
        if let error = error as? PSQLError {
            let state = error.serverInfo?[.sqlState]
            let message = error.serverInfo?[.message] ?? "\(error.code)\(error.underlying.map { " (\($0))" } ?? "")"
            let text = "\(what): \(message)\(state.map { " (SQLSTATE \($0))" } ?? "")"
            switch state {
            // Class XX: internal error (data_corrupted, index_corrupted).
            case let state? where state.hasPrefix("XX"): return .corrupt(text, engineCode: state, cause: error)
            // Class 23: integrity constraint violation.
            case let state? where state.hasPrefix("23"): return .constraint(text, engineCode: state, cause: error)
            // Serialization failure, deadlock, lock not available, lock or statement timeout.
            case "40001", "40P01", "55P03", "57014": return .busy(text, engineCode: state, cause: error)
            default: return .unavailable(text, engineCode: state, cause: error)
            }
        }
        if error is PostgresDecodingError || error is SQLRowError {
            return .corrupt("\(what): \(error)")
        }
        return .unavailable("\(what): \(error)")
    }
}
