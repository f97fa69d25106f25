/// One SQL statement written once for every engine: its text, the values bound to it, and the few places
/// where the engines differ, rendered by an `SQLDialect`.
///
/// Written as a string with interpolations: `"SELECT id FROM uploads WHERE id = \(id)\(.forUpdate)"` binds
/// `id` (a placeholder, never spliced text), and `.forUpdate` becomes ` FOR UPDATE` where the engine locks rows.
/// `\(unescaped:)` splices trusted text (a column list); `\(in:)` tests membership in a list.
package struct SQL: Sendable, ExpressibleByStringInterpolation {
    /// A part of the statement, in order.
    package enum Piece: Sendable, Equatable {
        /// Text as written.
        case text(String)
        /// A value bound to a placeholder.
        case bind(SQLValue)
        /// A membership test against a list (`IN (...)` or `= ANY(...)`).
        case membership(SQLValue)
        /// Text the dialect supplies.
        case keyword(SQLKeyword)
    }

    /// The parts, in order.
    package var pieces: [Piece]

    /// A statement of plain text, binding nothing.
    package init(stringLiteral text: String) {
        pieces = [.text(text)]
    }

    /// A statement written with interpolations.
    package init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    /// Collects the parts of an interpolated statement.
    package struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []

        /// Starts an empty statement.
        package init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        /// Text as written.
        package mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { pieces.append(.text(literal)) }
        }

        /// A bound value.
        package mutating func appendInterpolation(_ value: some SQLBindable) {
            pieces.append(.bind(value.sqlValue))
        }

        /// A bound value, or `NULL`.
        package mutating func appendInterpolation<Value: SQLBindable>(_ value: Value?) {
            pieces.append(.bind(value.sqlValue))
        }

        /// Another statement's parts, spliced in place (a column list with a dialect's function, say).
        package mutating func appendInterpolation(_ fragment: SQL) {
            pieces.append(contentsOf: fragment.pieces)
        }

        /// Trusted text spliced as written: column lists and the like, never input.
        package mutating func appendInterpolation(unescaped text: String) {
            pieces.append(.text(text))
        }

        /// Text the dialect supplies.
        package mutating func appendInterpolation(_ keyword: SQLKeyword) {
            pieces.append(.keyword(keyword))
        }

        /// A membership test: the expression before it is one of `values`.
        package mutating func appendInterpolation(in values: [String]) {
            pieces.append(.membership(.texts(values)))
        }

        /// A membership test: the expression before it is one of `values`.
        package mutating func appendInterpolation(in values: [Int64]) {
            pieces.append(.membership(.integers(values)))
        }
    }
}

/// The places where the engines' SQL differs, each spelt by the dialect.
package enum SQLKeyword: Sendable, Equatable {
    /// After a `SELECT`: lock the rows read until the transaction ends (PostgreSQL `FOR UPDATE`). Nothing on
    /// SQLite, whose write transactions hold the whole file from their start.
    case forUpdate
    /// After a `SELECT`: lock the rows read, skipping rows another transaction holds (PostgreSQL
    /// `FOR UPDATE SKIP LOCKED`). Nothing on SQLite.
    case forUpdateSkipLocked
    /// The function returning the largest of its arguments (`GREATEST`, SQLite's many-argument `MAX`).
    case greatest
    /// The function returning the smallest of its arguments (`LEAST`, SQLite's many-argument `MIN`).
    case least
    /// After an expression: compare it byte by byte (`COLLATE "C"` on PostgreSQL; SQLite's default).
    case binaryCollation
}
