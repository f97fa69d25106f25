import DepotCore
import Logging
import PostgresNIO

/// The shared ledger: PostgreSQL through postgres-nio, for several Depot instances working together.
///
/// Lifecycle: postgres-nio's `PostgresClient` only leases connections while its `run()` is active. Two ways:
/// - `PostgresLedger.connect(url:logger:)` owns the client: it starts `run()` in a detached task of its own,
///   migrates over one direct connection (so an unreachable server fails at once), and `shutdown()` cancels
///   the task and waits for it (no swift-service-lifecycle needed; `deinit` cancels it too, as a safety net).
/// - `PostgresLedger.forServiceGroup(url:logger:)` migrates, then hands back the ledger and its client's run loop as
///   a `Service` (`PostgresClientService`) for the application's service group, which starts and ends it;
///   `PostgresLedger(client:logger:)` borrows any client whose `run()` the owner drives. `shutdown()` then does
///   nothing.
///
/// Concurrency: every method is one SQL transaction (READ COMMITTED). Read-check-write methods lock the row
/// they decide on (`SELECT ... FOR UPDATE` on the transaction for `finish` and `setRevocation`, the
/// coverage row's upsert for `recordServed`), so instances racing on one transaction serialise there and
/// exactly one `finish` sees it pending. Rows are always locked in the same order (transaction, then
/// deliveries by content id and version); a deadlock or serialization failure is retried a few times.
package final class PostgresLedger: SQLLedger {
    /// The client; usable by the owner for its own queries.
    package let client: PostgresClient
    let logger: Logger
    private let runTask: Task<Void, Never>?

    /// Key of the transaction-level advisory lock that serialises migrations across instances.
    static let migrationLockKey: Int64 = 0x4465_706F_744C_6467  // "DepotLdg"
    /// How many times a transaction that hit a deadlock or serialization failure is tried.
    static let attempts = 4

    /// A logger that passes warnings and errors only (postgres-nio logs connection churn at info level), for
    /// tools and tests.
    package static let quietLogger: Logger = {
        var logger = Logger(label: "depot.ledger.postgres")
        logger.logLevel = .warning
        return logger
    }()

    /// Connects to the database at `url`, starts the client's run loop in a task this ledger owns, and
    /// migrates the schema. Call `shutdown()` when done.
    package static func connect(
        url: String, logger: Logger = Logger(label: "depot.ledger.postgres")
    )
        async throws(LedgerError)
        -> PostgresLedger
    {
        try await connect(url: try PostgresURL(url), logger: logger)
    }

    /// Connects to the database `url` describes; see `connect(url:logger:)`.
    package static func connect(
        url: PostgresURL, logger: Logger = Logger(label: "depot.ledger.postgres")
    )
        async throws(LedgerError) -> PostgresLedger
    {
        let client = PostgresClient(configuration: url.configuration, backgroundLogger: logger)
        let runTask = Task.detached { await client.run() }
        let ledger = PostgresLedger(client: client, runTask: runTask, logger: logger)
        do {
            try await migrate(url: url, logger: logger)
        } catch {
            await ledger.shutdown()
            throw error
        }
        return ledger
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

    /// A ledger on a new client for the database `url` describes, migrated, with the client's run loop as a
    /// service for the caller's service group: the ledger's queries wait until the group runs it, and the group's
    /// graceful shutdown ends it (put it first among the group's services, so that it ends after every service
    /// that uses the ledger).
    package static func forServiceGroup(
        url: PostgresURL, logger: Logger = Logger(label: "depot.ledger.postgres")
    ) async throws(LedgerError) -> (ledger: PostgresLedger, client: PostgresClientService) {
        try await migrate(url: url, logger: logger)
        let client = PostgresClient(configuration: url.configuration, backgroundLogger: logger)
        return (PostgresLedger(client: client, logger: logger), PostgresClientService(client: client))
    }

    /// A ledger on a client whose `run()` the caller drives; call `migrate()` before use.
    package convenience init(client: PostgresClient, logger: Logger = Logger(label: "depot.ledger.postgres")) {
        self.init(client: client, runTask: nil, logger: logger)
    }

    private init(client: PostgresClient, runTask: Task<Void, Never>?, logger: Logger) {
        self.client = client
        self.runTask = runTask
        self.logger = logger
    }

    deinit {
        runTask?.cancel()
    }

    /// How long `shutdown()` waits for the client's connections to close.
    static let shutdownBound: Duration = .seconds(30)

    /// Stops the client started by `connect` and waits until its connections are closed, at most
    /// `shutdownBound`: a client whose run does not end after its cancellation (a connection postgres-nio keeps
    /// waiting for) is logged and left to end with the process, so a server's stop never waits on it for ever.
    /// Calls after it fail.
    package func shutdown() async {
        guard let runTask else { return }
        runTask.cancel()
        guard await BoundedWait.end(of: runTask, within: Self.shutdownBound) else {
            logger.warning(
                "the PostgreSQL client did not stop within its bound after cancellation; left to end with the process",
                metadata: ["boundSeconds": "\(Self.shutdownBound.components.seconds)"])
            return
        }
    }

    /// Stops the client started by `connect`, as `shutdown()` does.
    package func close() async {
        await shutdown()
    }

    // MARK: Running transactions

    /// Runs `body` in one transaction of `kind`:
    /// - `.write`: a READ COMMITTED transaction, retried on deadlock or serialization failure;
    /// - `.snapshot`: the same, `REPEATABLE READ, READ ONLY`, so that every statement sees one snapshot;
    /// - `.read`: on a leased connection without `BEGIN` (each statement is its own transaction), not retried.
    @discardableResult
    package func transaction<T: Sendable>(
        _ kind: SQLTransactionKind, _ what: String, _ body: (any SQLSession) async throws -> T
    ) async throws(LedgerError) -> T {
        let logger = self.logger
        if case .read = kind {
            do {
                return try await client.withConnection { connection in
                    try await body(PostgresSession(connection: connection, logger: logger))
                }
            } catch {
                throw Self.ledgerError(error, while: what)
            }
        }
        var attempt = 1
        while true {
            do {
                return try await client.withTransaction(logger: logger) { connection in
                    let session = PostgresSession(connection: connection, logger: logger)
                    if case .snapshot = kind {
                        try await session.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    }
                    return try await body(session)
                }
            } catch {
                if attempt < Self.attempts, Self.isRetryable(error) {
                    logger.debug(
                        "retrying after a conflict", metadata: ["operation": "\(what)", "attempt": "\(attempt)"])
                    attempt += 1
                    continue
                }
                throw Self.ledgerError(error, while: what)
            }
        }
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
            // Class XX: internal error (data_corrupted, index_corrupted).
            if let state, state.hasPrefix("XX") {
                return .corrupt("\(what): \(message) (SQLSTATE \(state))")
            }
            return .unavailable("\(what): \(message)\(state.map { " (SQLSTATE \($0))" } ?? "")")
        }
        if error is PostgresDecodingError || error is SQLRowError {
            return .corrupt("\(what): \(error)")
        }
        return .unavailable("\(what): \(error)")
    }
}
