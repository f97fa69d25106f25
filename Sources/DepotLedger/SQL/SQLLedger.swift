/// A ledger whose operations are written once, in SQL over `SQLSession`, for every engine: an engine provides
/// only how a transaction runs (and its dialect, through the session), and receives every `Ledger` method.
///
/// Every operation is one call of `transaction(_:_:_:)`; the engine keeps its isolation and locking in that
/// call (SQLite's `BEGIN IMMEDIATE`, PostgreSQL's READ COMMITTED transactions retried on a conflict) and in
/// the dialect's row locks.
package protocol SQLLedger: Ledger {
    /// Runs `body` in one transaction of `kind`, committed when it returns and rolled back when it throws;
    /// errors become `LedgerError`s saying `what` was being done.
    @discardableResult
    func transaction<T: Sendable>(
        _ kind: SQLTransactionKind, _ what: String, _ body: @escaping @Sendable (any SQLSession) async throws -> T
    ) async throws(LedgerError) -> T
}

/// What a ledger operation does in its transaction.
package enum SQLTransactionKind: Sendable {
    /// Reads with one statement (or statements that need no common snapshot).
    case read
    /// Reads with several statements that must see one snapshot.
    case snapshot
    /// Reads, decides and writes: the engine's write transaction, whose row locks (`.forUpdate`) hold until
    /// it ends.
    case write
}
