/// One engine connection inside one of the ledger's transactions: runs statements written once as `SQL`,
/// spelt by the session's dialect.
package protocol SQLSession {
    /// How this engine spells the statements.
    var dialect: any SQLDialect { get }

    /// Runs a statement and answers how many rows it inserted, updated or deleted.
    @discardableResult
    func execute(_ sql: SQL) async throws -> Int

    /// Runs a statement and answers the rows it returned.
    func rows(_ sql: SQL) async throws -> [SQLRow]
}

extension SQLSession {
    /// The first row a statement returned, if any.
    package func row(_ sql: SQL) async throws -> SQLRow? {
        try await rows(sql).first
    }

    /// Takes the dialect's transaction-scoped lock on `name` (nothing where the write transaction excludes
    /// every other writer already).
    package func lock(_ name: String) async throws {
        if let statement = dialect.transactionLock(name) { try await execute(statement) }
    }
}
