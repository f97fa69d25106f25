import DepotCore

extension BundleDigest: SQLBindable {
    /// The digest's 64 lowercase hex digits, as the `digest` columns hold it.
    package var sqlValue: SQLValue { .text(hex) }
}

extension SQLRow {
    /// The bundle digest in the column at `index`; a column that is not 64 lowercase hex digits is corrupt.
    package func digest(_ index: Int) throws(SQLRowError) -> BundleDigest {
        let text = try text(index)
        guard let digest = BundleDigest(hex: text) else {
            throw SQLRowError(column: index, expected: "a bundle digest (64 lowercase hex digits)", found: .text(text))
        }
        return digest
    }
}
