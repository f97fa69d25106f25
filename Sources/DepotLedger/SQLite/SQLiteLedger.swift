import DepotCore
import Foundation
import GRDB

/// The embedded ledger: one SQLite file through GRDB, the default engine of a single Depot instance.
///
/// Durability and concurrency, as `Ledger` requires:
/// - A `DatabasePool` in WAL mode (readers never block the writer) with `PRAGMA synchronous = FULL`: in WAL
///   mode `NORMAL` may lose the last commits on power loss, `FULL` syncs the WAL at every commit, so a
///   method that returned has made its change durable (kill -9 or power cut). `fullfsync` asks macOS for a
///   real flush; Linux ignores it.
/// - Every method is one SQLite transaction. Writes begin `IMMEDIATE`, taking the file's write lock before
///   reading, so a read-check-write (`finish`, `recordServed`) cannot interleave with another writer, in
///   this process (GRDB's single writer queue) or in another process on the same file (the busy timeout
///   waits for the lock rather than failing).
/// - The schema is versioned by GRDB's `DatabaseMigrator` (`grdb_migrations` table); opening runs what is
///   missing, and opening an up-to-date file changes nothing.
package final class SQLiteLedger: SQLLedger {
    /// How long a write waits by default for another process's write lock before failing with `unavailable`.
    package static let busyTimeout: TimeInterval = 10

    /// The database file.
    package let path: String
    let pool: DatabasePool

    /// Opens (creating it and its directory if needed) the ledger file at `path` and migrates its schema.
    ///
    /// Opening may wait for other processes or ledgers opening the same file (see `init(path:)`), so it runs
    /// on a thread of its own rather than holding one of the few threads Swift's concurrency runs tasks on.
    /// A write waits up to `busyTimeout` seconds for another connection's write lock.
    package static func open(path: String, busyTimeout: TimeInterval = busyTimeout) async throws(LedgerError) -> SQLiteLedger {
        let result: Result<SQLiteLedger, LedgerError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do throws(LedgerError) {
                    continuation.resume(returning: .success(try SQLiteLedger(path: path, busyTimeout: busyTimeout)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Opens the ledger file at `path` and migrates its schema, blocking the calling thread meanwhile; async
    /// callers use `open(path:)`.
    ///
    /// Opening and migrating happen under an exclusive lock on a file beside the ledger: GRDB reads which
    /// migrations are applied before it takes the write lock, so instances opening one file together would
    /// each apply the same migration, and several connections turning one new file to WAL mode at once can
    /// be refused with "database is locked". Under the lock, they go one after the other, the later ones
    /// finding the work done.
    package init(path: String, busyTimeout: TimeInterval = busyTimeout) throws(LedgerError) {
        self.path = path
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .unavailable("cannot create the ledger directory \(directory): \(error)")
        }
        let lock = try MigrationLock(path: path + ".migration-lock")
        defer { lock.release() }
        do {
            pool = try DatabasePool(path: path, configuration: Self.configuration(busyTimeout: busyTimeout))
        } catch {
            throw Self.ledgerError(error, while: "opening \(path)")
        }
        do {
            try Self.migrator.migrate(pool)
        } catch {
            throw .migration("migrating \(path): \(error)")
        }
    }

    /// Closes the database; later calls fail with `unavailable`. Deinitialisation closes it too.
    package func close() throws(LedgerError) {
        do {
            try pool.close()
        } catch {
            throw Self.ledgerError(error, while: "closing \(path)")
        }
    }

    /// Concurrent readers: one per core, two to four. Each reader holds three file descriptors (the
    /// database, its WAL and the shared memory); more readers than cores add descriptors, not throughput.
    static let readerCount = min(4, max(2, ProcessInfo.processInfo.activeProcessorCount))

    static func configuration(busyTimeout: TimeInterval) -> Configuration {
        var configuration = Configuration()
        configuration.label = "DepotLedger"
        configuration.busyMode = .timeout(busyTimeout)
        configuration.maximumReaderCount = readerCount
        configuration.prepareDatabase { db in
            // WAL mode itself is set by DatabasePool. FULL: fsync the WAL on every commit.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA fullfsync = ON")
        }
        return configuration
    }

    // MARK: Running transactions

    /// Runs `body` in one transaction: a write begins `IMMEDIATE` (the file's write lock from the start), a read
    /// or a snapshot reads the last commit through a reader connection.
    ///
    /// `body` runs on the transaction's thread, inside GRDB's access, under the transaction's executor preference
    /// (`SQLiteTransaction`): off the concurrency pool, because the transaction's lock is held until `body` ends,
    /// and with no thread hand-off per statement. The transaction commits when `body` returns and rolls back
    /// when it throws; an access that fails to begin fails the statements sent.
    @discardableResult
    package func transaction<T: Sendable>(
        _ kind: SQLTransactionKind, _ what: String, _ body: @escaping @Sendable (any SQLSession) async throws -> T
    ) async throws(LedgerError) -> T {
        let transaction = SQLiteTransaction(kind == .write ? .write : .read)
        transaction.start(on: pool)
        let result: Result<T, any Error> = await withTaskExecutorPreference(transaction) {
            do {
                return .success(try await body(SQLiteSession(transaction: transaction)))
            } catch {
                return .failure(error)
            }
        }
        let succeeded: Bool
        if case .success = result { succeeded = true } else { succeeded = false }
        do {
            try await transaction.end(commit: succeeded)
        } catch {
            // The commit failed (or the access never began, and `body` saw the same error).
            if case .success = result { throw Self.ledgerError(error, while: what) }
        }
        do {
            return try result.get()
        } catch {
            throw Self.ledgerError(error, while: what)
        }
    }

    static func ledgerError(_ error: any Error, while what: String) -> LedgerError {
        if let error = error as? LedgerError { return error }
        if let error = error as? DatabaseError {
            let engineCode = Self.resultCodeName(error.resultCode, extended: error.extendedResultCode)
            switch error.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT:
                return .corrupt("\(what): \(error)", engineCode: engineCode, cause: error)
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return .busy("\(what): \(error)", engineCode: engineCode, cause: error)
            case .SQLITE_CONSTRAINT:
                return .constraint("\(what): \(error)", engineCode: engineCode, cause: error)
            default:
                return .unavailable("\(what): \(error)", engineCode: engineCode, cause: error)
            }
        }
        if error is RowDecodingError || error is SQLRowError {
            return .corrupt("\(what): \(error)")
        }
        return .unavailable("\(what): \(error)")
    }
}

extension SQLiteLedger {
    /// SQLite's name of a primary result code (`SQLITE_BUSY`), with the extended code's number when it says more
    /// (`SQLITE_CONSTRAINT (1555)`).
    static func resultCodeName(_ code: ResultCode, extended: ResultCode) -> String {
        let names: [Int32: String] = [
            1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT", 5: "SQLITE_BUSY", 6: "SQLITE_LOCKED",
            7: "SQLITE_NOMEM", 8: "SQLITE_READONLY", 9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT",
            13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL", 17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG",
            19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH", 21: "SQLITE_MISUSE", 24: "SQLITE_FORMAT", 26: "SQLITE_NOTADB",
        ]
        let name = names[code.rawValue] ?? "SQLITE \(code.rawValue)"
        return extended.rawValue == code.rawValue ? name : "\(name) (\(extended.rawValue))"
    }

    /// A pragma's value on a reader connection, for checks (`journal_mode`, `synchronous`, ...).
    func pragma(_ name: String) async throws(LedgerError) -> String? {
        guard name.allSatisfy({ $0.isLetter || $0 == "_" }) else { throw .unavailable("not a pragma: \(name)") }
        do {
            return try await pool.read { db in
                switch try DatabaseValue.fetchOne(db, sql: "PRAGMA \(name)")?.storage {
                case .int64(let value): String(value)
                case .string(let value): value
                case .double(let value): String(value)
                case .blob, .null, nil: nil
                }
            }
        } catch {
            throw Self.ledgerError(error, while: "reading PRAGMA \(name)")
        }
    }
}
