import GRDB

/// A session on the connection of one SQLite transaction: each statement runs on the transaction's thread, at once
/// when the operation's task runs there (as it does under the transaction's executor preference).
struct SQLiteSession: SQLSession {
    let transaction: SQLiteTransaction

    var dialect: any SQLDialect { SQLiteDialect() }

    @discardableResult
    func execute(_ sql: SQL) async throws -> Int {
        try await transaction.withDatabase { db in
            let (statement, arguments) = try Self.prepared(sql, in: db)
            try statement.execute(arguments: arguments)
            return db.changesCount
        }
    }

    func rows(_ sql: SQL) async throws -> [SQLRow] {
        try await transaction.withDatabase { db in
            let (statement, arguments) = try Self.prepared(sql, in: db)
            let cursor = try SQLRowCursor(statement: statement, arguments: arguments)
            var rows: [SQLRow] = []
            while let row = try cursor.next() { rows.append(row) }
            return rows
        }
    }

    /// The compiled statement and its arguments. A statement whose text is fixed (no list expanded into
    /// placeholders) is compiled once per connection and kept (GRDB's statement cache): the ledger's few dozen
    /// statements, each compiled once instead of at every call. One with a list is compiled for the call.
    private static func prepared(_ sql: SQL, in db: Database) throws -> (Statement, StatementArguments) {
        let (text, binds) = SQLiteDialect().render(sql)
        // Through GRDB's initializer for optional existentials: its initializer for a sequence of one concrete type maps
        // with a key path, which unspecialised code instantiates anew at every call (about 7,000 instructions each).
        let arguments = StatementArguments(binds.map { databaseValue($0) as (any DatabaseValueConvertible)? })
        let hasList = sql.pieces.contains { piece in
            if case .membership = piece { true } else { false }
        }
        return (hasList ? try db.makeStatement(sql: text) : try db.cachedStatement(sql: text), arguments)
    }

    private static func databaseValue(_ value: SQLValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .text(let text): text.databaseValue
        case .boolean(let boolean): boolean.databaseValue
        // The dialect expands lists into one bind per element, and unreadable values are never bound.
        case .texts, .integers, .unreadable: .null
        }
    }

    /// The ledger's value for a value SQLite returned.
    static func sqlValue(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null
        case .int64(let integer): .integer(integer)
        case .string(let text): .text(text)
        case .double(let real): .unreadable("the real \(real)")
        case .blob(let data): .unreadable("a blob of \(data.count) bytes")
        }
    }
}
