import Logging
import PostgresNIO

extension PostgresLedger {
    /// The schema versions applied to this database, oldest first (`version name`).
    package func appliedMigrations() async throws(LedgerError) -> [String] {
        try await transaction(.read, "reading applied migrations") { session in
            try await session.rows("SELECT version, name FROM depot_schema_migrations ORDER BY version").map { row in
                "\(try row.integer(0)) \(try row.text(1))"
            }
        }
    }

    /// Creates an empty database `name` on the server `serverURL` points at (connecting to its database).
    /// `name` must be a plain identifier: lowercase letters, digits and `_`.
    package static func createDatabase(
        _ name: String, serverURL: PostgresURL, logger: Logger = Logger(label: "depot.ledger.postgres")
    )
        async throws(LedgerError)
    {
        try checkIdentifier(name)
        try await withAdminConnection(serverURL, logger: logger) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        }
    }

    /// Drops database `name` on the server `serverURL` points at, closing its sessions (`WITH (FORCE)`).
    ///
    /// Two answers are passing, and retried up to `attempts` times, one second more apart each time: the server
    /// waits only five seconds for the sessions it closes to end, which a loaded machine can exceed (SQLSTATE
    /// 55006, "being accessed by other users"); and an autovacuum worker that happens to be in the database has
    /// no role the caller may signal, so PostgreSQL 15 refuses to close it (SQLSTATE 42501, "must be a member of
    /// the role whose process is being terminated") until the worker is done, which takes moments.
    package static func dropDatabase(
        _ name: String, serverURL: PostgresURL, attempts: Int = 5,
        logger: Logger = Logger(label: "depot.ledger.postgres")
    )
        async throws(LedgerError)
    {
        try checkIdentifier(name)
        var attempt = 1
        while true {
            do {
                try await withAdminConnection(serverURL, logger: logger) { connection in
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
                }
                return
            } catch let error where attempt < attempts && isPassing(error) {
                try? await Task.sleep(for: .seconds(attempt))
                attempt += 1
            }
        }
    }

    private static func isPassing(_ error: LedgerError) -> Bool {
        error.message.contains("(SQLSTATE 55006)")
            || (error.message.contains("(SQLSTATE 42501)") && error.message.contains("process is being terminated"))
    }

    private static func checkIdentifier(_ name: String) throws(LedgerError) {
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
        guard allowed, let first = name.unicodeScalars.first, !("0"..."9").contains(first), name.count <= 63 else {
            throw .unavailable("not a plain database name: \(name)")
        }
    }

    private static func withAdminConnection(
        _ url: PostgresURL, logger: Logger, _ body: (PostgresConnection) async throws -> Void
    ) async throws(LedgerError) {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try url.connectionConfiguration(), id: 0, logger: logger)
            do {
                try await body(connection)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        } catch {
            throw ledgerError(error, while: "administering \(url)")
        }
    }
}
