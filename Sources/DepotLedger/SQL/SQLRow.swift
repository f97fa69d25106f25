/// One row a statement returned: its columns' values in the order selected, read by position.
///
/// Reading a column as a type it does not hold throws `SQLRowError`, which the engines report as a corrupt
/// ledger. Booleans read from SQLite's integers 1 and 0 as well as from PostgreSQL's `BOOLEAN`.
package struct SQLRow: Sendable, Equatable {
    /// The values, one per column.
    package var values: [SQLValue]

    /// A row of these values.
    package init(_ values: [SQLValue]) {
        self.values = values
    }

    /// The integer in column `index`.
    package func integer(_ index: Int) throws(SQLRowError) -> Int64 {
        guard let value = try optionalInteger(index) else { throw SQLRowError(column: index, expected: "an integer", found: .null) }
        return value
    }

    /// The integer in column `index`, nil for `NULL`.
    package func optionalInteger(_ index: Int) throws(SQLRowError) -> Int64? {
        switch try value(index) {
        case .null: return nil
        case .integer(let value): return value
        case let other: throw SQLRowError(column: index, expected: "an integer", found: other)
        }
    }

    /// The integer in column `index`, as an `Int`.
    package func int(_ index: Int) throws(SQLRowError) -> Int {
        Int(try integer(index))
    }

    /// The text in column `index`.
    package func text(_ index: Int) throws(SQLRowError) -> String {
        guard let value = try optionalText(index) else { throw SQLRowError(column: index, expected: "text", found: .null) }
        return value
    }

    /// The text in column `index`, nil for `NULL`.
    package func optionalText(_ index: Int) throws(SQLRowError) -> String? {
        switch try value(index) {
        case .null: return nil
        case .text(let value): return value
        case let other: throw SQLRowError(column: index, expected: "text", found: other)
        }
    }

    /// The boolean in column `index` (SQLite's 1 and 0 included).
    package func boolean(_ index: Int) throws(SQLRowError) -> Bool {
        switch try value(index) {
        case .boolean(let value): return value
        case .integer(let value) where value == 0 || value == 1: return value == 1
        case let other: throw SQLRowError(column: index, expected: "a boolean", found: other)
        }
    }

    private func value(_ index: Int) throws(SQLRowError) -> SQLValue {
        guard values.indices.contains(index) else {
            throw SQLRowError(column: index, expected: "a column", found: nil)
        }
        return values[index]
    }
}

/// A column of a row did not hold the type it was read as.
package struct SQLRowError: Error, CustomStringConvertible {
    /// The column's position.
    package var column: Int
    /// What the reader expected.
    package var expected: String
    /// What the column held; nil when the row has no such column.
    package var found: SQLValue?

    /// `column 3 holds ..., not an integer`.
    package var description: String {
        guard let found else { return "the row has no column \(column)" }
        return "column \(column) holds \(found), not \(expected)"
    }
}
