import GRDB

/// The rows of one execution of a statement as ``SQLRow``s, their values read by column position.
///
/// GRDB's `Row` cursor builds a dictionary of the statement's column names at every execution (about 10,000
/// instructions a query, a third of a redemption's SQLite work beside SQLite itself); the ledger reads columns by
/// position and never by name, so its rows are read without it.
final class SQLRowCursor: DatabaseCursor {
    typealias Element = SQLRow

    /// The statement stepped.
    let _statement: Statement
    /// Whether the last row was read.
    var _isDone = false
    private let width: CInt

    /// A cursor over the rows of `statement` run with `arguments` (bound here, after a reset of the statement).
    init(statement: Statement, arguments: StatementArguments) throws {
        _statement = statement
        width = CInt(statement.columnCount)
        try statement.setArguments(arguments)
    }

    /// The row the statement stands on.
    func _element(sqliteStatement: SQLiteStatement) throws -> SQLRow {
        var values: [SQLValue] = []
        values.reserveCapacity(Int(width))
        for index in 0..<width {
            values.append(SQLiteSession.sqlValue(DatabaseValue(sqliteStatement: sqliteStatement, index: index)))
        }
        return SQLRow(values)
    }
}
