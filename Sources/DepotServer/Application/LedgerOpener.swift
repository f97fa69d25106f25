import DepotSettings
import DepotLedger
import Foundation
import Logging

/// Opens the ledger a URL names: `sqlite:PATH` (the embedded default) or `postgres://...`.
package enum LedgerOpener {
    /// Opens and migrates the ledger. A SQLite ledger's writes wait up to `busyTimeoutSeconds` for another
    /// connection's write lock.
    package static func open(_ url: String, busyTimeoutSeconds: Int64, logger: Logger) async throws -> any Ledger {
        if url.hasPrefix("sqlite:") {
            let path = String(url.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw ConfigurationError("the ledger URL \(url) names no file") }
            logger.info("ledger", metadata: ["engine": "sqlite", "path": "\(path)"])
            return try await SQLiteLedger.open(path: path, busyTimeout: TimeInterval(busyTimeoutSeconds))
        }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            logger.info("ledger", metadata: ["engine": "postgresql"])
            return try await PostgresLedger.connect(url: url, logger: logger)
        }
        throw ConfigurationError("the ledger URL must start with sqlite: or postgres://")
    }
}

extension LedgerOpener {
    /// Closes a ledger `open` returned (stops a PostgreSQL client, closes a SQLite file).
    package static func close(_ ledger: any Ledger) async {
        try? await ledger.close()
    }
}
