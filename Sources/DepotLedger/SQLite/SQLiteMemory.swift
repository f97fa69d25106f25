import GRDBSQLite

/// The heap memory SQLite holds in this process, as SQLite itself counts it: its page caches, prepared
/// statements, schemas and scratch space, across every connection the process has open.
///
/// It tells apart the part of the C heap that is the ledger's caches (bounded by `PRAGMA cache_size` per
/// connection) from the rest of the process.
package struct SQLiteMemory: Sendable, Equatable {
    /// Bytes SQLite has allocated and not freed.
    package var inUseBytes: Int
    /// The largest `inUseBytes` has been since the process started.
    package var highWaterBytes: Int

    /// The figures now.
    package static func read() -> SQLiteMemory {
        SQLiteMemory(inUseBytes: Int(sqlite3_memory_used()), highWaterBytes: Int(sqlite3_memory_highwater(0)))
    }
}
