import Logging
import NIOCore
import PostgresNIO

/// A session on one PostgreSQL connection: inside a transaction the ledger began, or on a connection leased
/// for one read.
struct PostgresSession: SQLSession {
    let connection: PostgresConnection
    let logger: Logger

    var dialect: any SQLDialect { PostgresDialect() }

    @discardableResult
    func execute(_ sql: SQL) async throws -> Int {
        try await run(sql).metadata.rows ?? 0
    }

    func rows(_ sql: SQL) async throws -> [SQLRow] {
        try await run(sql).rows.map(Self.sqlRow)
    }

    /// Runs the statement and collects its rows and command tag (`UPDATE 2` and the like).
    private func run(_ sql: SQL) async throws -> PostgresQueryResult {
        let (text, values) = PostgresDialect().render(sql)
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            // As postgres-nio binds a nil: no type, the server infers it.
            case .null, .unreadable: binds.appendNull()
            case .integer(let integer): binds.append(integer)
            case .text(let text): binds.append(text)
            case .boolean(let boolean): binds.append(boolean)
            case .texts(let texts): binds.append(texts)
            case .integers(let integers): binds.append(integers)
            }
        }
        let result: EventLoopFuture<PostgresQueryResult> = connection.query(
            PostgresQuery(unsafeSQL: text, binds: binds), logger: logger)
        return try await result.get()
    }

    private static func sqlRow(_ row: PostgresRow) throws -> SQLRow {
        try SQLRow(row.map(value))
    }

    private static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int8: return .integer(try cell.decode(Int64.self))
        case .int4: return .integer(Int64(try cell.decode(Int32.self)))
        case .int2: return .integer(Int64(try cell.decode(Int16.self)))
        case .bool: return .boolean(try cell.decode(Bool.self))
        case .text, .varchar, .bpchar, .name: return .text(try cell.decode(String.self))
        default: return .unreadable("a value of type \(cell.dataType)")
        }
    }
}
