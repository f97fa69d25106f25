import DepotSettings
import DepotLedger
import Foundation
import Logging

/// Opens the ledger a URL names: `sqlite:PATH` (the embedded default) or `postgres://...`.
package enum LedgerOpener {
    /// Opens and migrates the ledger. A SQLite ledger's writes wait up to `busyTimeoutSeconds` for another
    /// connection's write lock.
    /// A PostgreSQL ledger's operations each answer within `waitSeconds`.
    package static func open(
        _ url: String, busyTimeoutSeconds: Int64, waitSeconds: Int64 = 5, logger: Logger
    ) async throws -> any Ledger {
        if url.hasPrefix("sqlite:") {
            let path = String(url.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw ConfigurationError("the ledger URL \(url) names no file") }
            logger.info("ledger", metadata: ["engine": "sqlite", "path": "\(path)"])
            return try await SQLiteLedger.open(path: path, busyTimeout: TimeInterval(busyTimeoutSeconds))
        }
        if isPostgres(url) {
            logger.info("ledger", metadata: ["engine": "postgresql"])
            return try await PostgresLedger.connect(url: url, waitBound: .seconds(waitSeconds), logger: logger)
        }
        throw ConfigurationError("the ledger URL must start with sqlite: or postgres://")
    }

    /// Whether a ledger URL names a PostgreSQL server.
    private static func isPostgres(_ url: String) -> Bool {
        url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")
    }
}

extension LedgerOpener {
    /// Opens and migrates the ledger for a server whose service group runs its connections: for PostgreSQL, the
    /// client's run loop is returned as a service to list first in the group (so that it ends after every service
    /// that uses the ledger); a SQLite ledger has none and is closed by its owner. A PostgreSQL server that cannot be
    /// reached yet is waited for (logged, with a growing pause) for at most `waitForServer` (nil: without end).
    package static func openForServiceGroup(
        _ url: String, busyTimeoutSeconds: Int64, waitSeconds: Int64 = 5, waitForServer: Duration? = .zero,
        logger: Logger
    ) async throws -> (ledger: any Ledger, client: PostgresClientService?) {
        if isPostgres(url) {
            logger.info("ledger", metadata: ["engine": "postgresql", "client": "service"])
            let location = try PostgresURL(url)
            if waitForServer != .zero {
                try await PostgresLedger.waitForServer(url: location, bound: waitForServer, logger: logger)
            }
            let opened = try await PostgresLedger.forServiceGroup(
                url: location, waitBound: .seconds(waitSeconds), logger: logger)
            return (opened.ledger, opened.client)
        }
        return (try await open(url, busyTimeoutSeconds: busyTimeoutSeconds, logger: logger), nil)
    }

    /// Closes a ledger `open` returned (stops a PostgreSQL client, closes a SQLite file).
    package static func close(_ ledger: any Ledger) async {
        try? await ledger.close()
    }
}
