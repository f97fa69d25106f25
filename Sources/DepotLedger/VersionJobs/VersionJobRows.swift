/// Reading and writing version-job rows.
enum VersionJobRows {
    /// The selected columns, in the order `job(_:)` reads them.
    static let columns = """
        id, product_id, version, content_key, upload_id, publisher, sha256, published_at, state, failure_reason,
        created_at, updated_at
        """

    /// The key column's value: the declared content id, or '' when none was declared.
    static func contentKey(_ contentId: String?) -> String { contentId ?? "" }

    /// A job from its columns, in `columns` order.
    static func job(_ row: SQLRow) throws -> VersionJob {
        let id = try row.text(0)
        let stateName = try row.text(8)
        guard let state = VersionJobState(rawValue: stateName) else {
            throw LedgerError.corrupt("version job \(id) has an unknown state \(stateName)")
        }
        let contentKey = try row.text(3)
        return VersionJob(
            id: id, productId: try row.text(1), version: try row.text(2), contentId: contentKey.isEmpty ? nil : contentKey,
            uploadId: try row.text(4), publisher: try row.text(5), sha256: try row.text(6),
            publishedAt: try row.optionalInteger(7), state: state, failureReason: try row.optionalText(9),
            createdAt: try row.integer(10), updatedAt: try row.integer(11))
    }
}
