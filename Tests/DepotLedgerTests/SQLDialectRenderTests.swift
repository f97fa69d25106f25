import Testing

@testable import DepotLedger

/// What each dialect makes of one statement: placeholders numbered in bind order, lists bound element by element
/// (SQLite) or as one array (PostgreSQL), keywords spelled per engine, unescaped text kept as written.
@Suite struct SQLDialectRenderTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let sql: SQL
        let sqlite: (String, [SQLValue])
        let postgres: (String, [SQLValue])
        var testDescription: String { name }
    }

    static let fragment: SQL = "c = \(Int64(3))"

    static let rows: [Row] = [
        Row(
            name: "binds in order", sql: "SELECT * FROM t WHERE a = \("x") AND b = \(Int64(7))",
            sqlite: ("SELECT * FROM t WHERE a = ? AND b = ?", [.text("x"), .integer(7)]),
            postgres: ("SELECT * FROM t WHERE a = $1 AND b = $2", [.text("x"), .integer(7)])),
        Row(
            name: "a nil binds NULL", sql: "UPDATE t SET a = \(nil as String?)",
            sqlite: ("UPDATE t SET a = ?", [.null]), postgres: ("UPDATE t SET a = $1", [.null])),
        Row(
            name: "a text list", sql: "SELECT 1 FROM t WHERE id \(in: ["a", "b", "c"]) AND x = \(Int64(1))",
            sqlite: ("SELECT 1 FROM t WHERE id IN (?, ?, ?) AND x = ?", [.text("a"), .text("b"), .text("c"), .integer(1)]),
            postgres: ("SELECT 1 FROM t WHERE id = ANY($1) AND x = $2", [.texts(["a", "b", "c"]), .integer(1)])),
        Row(
            name: "an integer list", sql: "DELETE FROM t WHERE n \(in: [Int64(1), 2])",
            sqlite: ("DELETE FROM t WHERE n IN (?, ?)", [.integer(1), .integer(2)]),
            postgres: ("DELETE FROM t WHERE n = ANY($1)", [.integers([1, 2])])),
        Row(
            name: "row locks", sql: "SELECT id FROM t WHERE id = \("1")\(.forUpdate)",
            sqlite: ("SELECT id FROM t WHERE id = ?", [.text("1")]),
            postgres: ("SELECT id FROM t WHERE id = $1 FOR UPDATE", [.text("1")])),
        Row(
            name: "claims skip locked rows", sql: "SELECT id FROM t LIMIT 5\(.forUpdateSkipLocked)",
            sqlite: ("SELECT id FROM t LIMIT 5", []), postgres: ("SELECT id FROM t LIMIT 5 FOR UPDATE SKIP LOCKED", [])),
        Row(
            name: "greatest and least", sql: "SELECT \(.greatest)(a, b), \(.least)(a, b) FROM t",
            sqlite: ("SELECT MAX(a, b), MIN(a, b) FROM t", []), postgres: ("SELECT GREATEST(a, b), LEAST(a, b) FROM t", [])),
        Row(
            name: "byte-wise order", sql: "SELECT id FROM t ORDER BY id\(.binaryCollation)",
            sqlite: ("SELECT id FROM t ORDER BY id", []), postgres: ("SELECT id FROM t ORDER BY id COLLATE \"C\"", [])),
        Row(
            name: "unescaped text and a spliced fragment",
            sql: "SELECT \(unescaped: "a, b") FROM t WHERE \(fragment) AND d = \("4")",
            sqlite: ("SELECT a, b FROM t WHERE c = ? AND d = ?", [.integer(3), .text("4")]),
            postgres: ("SELECT a, b FROM t WHERE c = $1 AND d = $2", [.integer(3), .text("4")])),
        Row(
            name: "a quote in a bound value stays a value", sql: "SELECT 1 WHERE a = \("'; DROP TABLE t; --")",
            sqlite: ("SELECT 1 WHERE a = ?", [.text("'; DROP TABLE t; --")]),
            postgres: ("SELECT 1 WHERE a = $1", [.text("'; DROP TABLE t; --")])),
    ]

    @Test(arguments: rows)
    func eachDialectRendersTheStatement(_ row: Row) {
        let sqlite = SQLiteDialect().render(row.sql)
        #expect(sqlite.text == row.sqlite.0 && sqlite.binds == row.sqlite.1, "\(sqlite)")
        let postgres = PostgresDialect().render(row.sql)
        #expect(postgres.text == row.postgres.0 && postgres.binds == row.postgres.1, "\(postgres)")
    }

    @Test func onlyPostgreSQLTakesANamedTransactionLock() throws {
        #expect(SQLiteDialect().transactionLock("catalog") == nil)
        let lock = PostgresDialect().render(try #require(PostgresDialect().transactionLock("catalog")))
        #expect(lock.text == "SELECT pg_advisory_xact_lock(hashtext($1))" && lock.binds == [.text("catalog")])
    }
}
