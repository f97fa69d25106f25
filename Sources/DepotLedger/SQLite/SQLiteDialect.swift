/// SQLite's spelling: `?` placeholders, `IN (?, ?)` lists, many-argument `MAX` and `MIN`, and no row locks (a write
/// transaction begins `IMMEDIATE`, holding the file's write lock from its start).
struct SQLiteDialect: SQLDialect {
    func placeholder(_ position: Int) -> String { "?" }

    func text(of keyword: SQLKeyword) -> String {
        switch keyword {
        case .forUpdate, .forUpdateSkipLocked, .binaryCollation: ""
        case .greatest: "MAX"
        case .least: "MIN"
        }
    }

    /// `IN (?, ?, ...)`, one bind per element; SQLite takes an empty list (`IN ()` is false).
    func membership(_ list: SQLValue, binds: inout [SQLValue]) -> String {
        let values: [SQLValue] =
            switch list {
            case .texts(let texts): texts.map(SQLValue.text)
            case .integers(let integers): integers.map(SQLValue.integer)
            case let value: [value]
            }
        binds.append(contentsOf: values)
        return "IN (" + Array(repeating: "?", count: values.count).joined(separator: ", ") + ")"
    }

    func transactionLock(_ name: String) -> SQL? { nil }
}
