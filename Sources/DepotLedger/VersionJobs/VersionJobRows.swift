/// Reading and writing version-job rows the same way on both engines.
enum VersionJobRows {
    /// The selected columns, in the order `job(_:)` takes them.
    static let columns = """
        id, product_id, version, content_key, upload_id, publisher, sha256, published_at, state, failure_reason,
        created_at, updated_at
        """

    /// The key column's value: the declared content id, or '' when none was declared.
    static func contentKey(_ contentId: String?) -> String { contentId ?? "" }

    /// A job from its columns, in `columns` order.
    static func job(
        _ values: (String, String, String, String, String, String, String, Int64?, String, String?, Int64, Int64)
    ) throws(LedgerError) -> VersionJob {
        guard let state = VersionJobState(rawValue: values.8) else {
            throw .corrupt("version job \(values.0) has an unknown state \(values.8)")
        }
        return VersionJob(
            id: values.0, productId: values.1, version: values.2, contentId: values.3.isEmpty ? nil : values.3,
            uploadId: values.4, publisher: values.5, sha256: values.6, publishedAt: values.7, state: state,
            failureReason: values.9, createdAt: values.10, updatedAt: values.11)
    }
}
