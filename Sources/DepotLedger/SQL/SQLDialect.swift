/// How one engine spells what the ledger's SQL leaves open: placeholders, row locks, lists, the greatest
/// of values, byte-wise collation, and transaction-scoped locks on a name.
package protocol SQLDialect: Sendable {
    /// The placeholder of the bind at `position` (1 for the first): `?` or `$1`.
    func placeholder(_ position: Int) -> String

    /// The text of a keyword.
    func text(of keyword: SQLKeyword) -> String

    /// The text of a membership test against `list` (a `.texts` or `.integers` value), appending what it
    /// binds to `binds`.
    func membership(_ list: SQLValue, binds: inout [SQLValue]) -> String

    /// A statement taking a lock on `name` held until the transaction ends, for work with no row to lock yet;
    /// nil where a write transaction excludes every other writer anyway.
    func transactionLock(_ name: String) -> SQL?
}

extension SQLDialect {
    /// The statement's text in this dialect and the values bound to it, in placeholder order.
    package func render(_ sql: SQL) -> (text: String, binds: [SQLValue]) {
        var text = ""
        var binds: [SQLValue] = []
        for piece in sql.pieces {
            switch piece {
            case .text(let part):
                text += part
            case .bind(let value):
                binds.append(value)
                text += placeholder(binds.count)
            case .membership(let list):
                text += membership(list, binds: &binds)
            case .keyword(let keyword):
                text += self.text(of: keyword)
            }
        }
        return (text, binds)
    }
}
