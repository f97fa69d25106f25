import DepotCore

/// Reading delivery and offer rows.
enum DeliveryRows {
    /// The selected columns of `deliveries d` joined with `transactions t` and `served_coverage c`, in the order
    /// `status(_:)` reads them.
    static let columns: SQL = """
        d.transaction_id, d.content_id, d.version, d.digest, d.grants_issued, COALESCE(c.bytes_covered, 0),
        d.confirmed_at, \(.greatest)(d.last_activity_at, COALESCE(c.last_served_at, 0)), t.store, t.purchase_date_ms
        """

    /// Google Play refunds a purchase nobody acknowledged within this many seconds of its purchase time.
    package static let googlePlayAcknowledgementSeconds: Int64 = 3 * 86_400

    /// A delivery's state from its columns.
    static func status(_ row: SQLRow) throws -> DeliveryStatus {
        DeliveryStatus(
            transactionId: try row.text(0),
            delivery: PlannedDelivery(contentId: try row.text(1), version: try row.text(2), digest: try row.digest(3)),
            grantsIssued: try row.int(4), bytesCovered: try row.integer(5), confirmedAt: try row.optionalInteger(6),
            lastActivityAt: try row.integer(7),
            storeDeadline: try row.text(8) == PurchaseStore.googlePlay.rawValue
                ? (try row.integer(9) / 1000).addingReportingOverflow(googlePlayAcknowledgementSeconds).partialValue : nil)
    }

    /// Every bundle offered for a transaction, sorted by content, version, digest.
    static func offers(_ session: any SQLSession, transactionId: String) async throws -> [PlannedDelivery] {
        try await session.rows(
            """
            SELECT content_id, version, digest FROM offers WHERE transaction_id = \(transactionId)
            ORDER BY content_id, version, digest
            """
        ).map { row in PlannedDelivery(contentId: try row.text(0), version: try row.text(1), digest: try row.digest(2)) }
    }
}
