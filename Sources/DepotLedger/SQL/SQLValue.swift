/// One value bound to a statement or read from a row, in the few types the ledger stores: every number is a
/// 64-bit integer (SQLite `INTEGER`, PostgreSQL `BIGINT`), every string is text.
///
/// Booleans are bound as the engine has them (SQLite stores 1 and 0, PostgreSQL `BOOLEAN`); lists appear only
/// on the right of a membership test and are bound as the dialect says (`IN (?, ?)` or `= ANY($1)`).
package enum SQLValue: Sendable, Equatable {
    /// SQL `NULL`, bound without a type, as postgres-nio binds a `nil`.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// Text.
    case text(String)
    /// A boolean.
    case boolean(Bool)
    /// A list of texts, for a membership test.
    case texts([String])
    /// A list of integers, for a membership test.
    case integers([Int64])
    /// A column value of a type the ledger never stores (a real, a blob, a timestamp), described; reading it
    /// as any type fails, and it is never bound.
    case unreadable(String)
}

/// A Swift value that binds as one `SQLValue`.
package protocol SQLBindable: Sendable {
    /// The bound value.
    var sqlValue: SQLValue { get }
}

extension Int64: SQLBindable {
    /// An integer.
    package var sqlValue: SQLValue { .integer(self) }
}

extension Int: SQLBindable {
    /// An integer, widened to 64 bits as the columns are.
    package var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension String: SQLBindable {
    /// Text.
    package var sqlValue: SQLValue { .text(self) }
}

extension Bool: SQLBindable {
    /// A boolean.
    package var sqlValue: SQLValue { .boolean(self) }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    /// The wrapped value, or `NULL`.
    package var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
