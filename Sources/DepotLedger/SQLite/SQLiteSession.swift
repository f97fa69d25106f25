/// A session on the SQLite connection GRDB lends one database access to (see ``SQLiteAccess``): the operation runs
/// on the access's thread, so each statement runs at once, where it is asked.
struct SQLiteSession: SQLSession {
    let access: SQLiteAccess

    var dialect: any SQLDialect { SQLiteDialect() }

    @discardableResult
    func execute(_ sql: SQL) async throws -> Int {
        switch try access.run(sql, wantsRows: false) {
        case .changes(let count): count
        case .rows: 0
        }
    }

    func rows(_ sql: SQL) async throws -> [SQLRow] {
        switch try access.run(sql, wantsRows: true) {
        case .rows(let rows): rows
        case .changes: []
        }
    }
}
