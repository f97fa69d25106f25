/// PostgreSQL's spelling: `$1` placeholders, `= ANY($1)` against an array, `GREATEST` and `LEAST`, `COLLATE "C"`, row locks
/// (`FOR UPDATE`, `FOR UPDATE SKIP LOCKED`) and transaction-scoped advisory locks on a name's hash.
struct PostgresDialect: SQLDialect {
    func placeholder(_ position: Int) -> String { "$\(position)" }

    func text(of keyword: SQLKeyword) -> String {
        switch keyword {
        case .forUpdate: " FOR UPDATE"
        case .forUpdateSkipLocked: " FOR UPDATE SKIP LOCKED"
        case .greatest: "GREATEST"
        case .least: "LEAST"
        case .binaryCollation: " COLLATE \"C\""
        }
    }

    /// `= ANY($n)`, the list bound as one array.
    func membership(_ list: SQLValue, binds: inout [SQLValue]) -> String {
        binds.append(list)
        return "= ANY(\(placeholder(binds.count)))"
    }

    /// `pg_advisory_xact_lock` on the name's `hashtext`: held until the transaction ends, on every instance.
    func transactionLock(_ name: String) -> SQL? {
        "SELECT pg_advisory_xact_lock(hashtext(\(name)))"
    }
}
