import DepotCore

/// Google Play's pending refund reviews: the token of the latest review of each transaction (an order), kept
/// until its answer is sent through the outbox as the transaction's `consumption` job.
enum RefundReviewRows {
    /// SQLite: `v15-refund-reviews`; PostgreSQL: version 15. `requested_at` is seconds since 1970.
    static func statements(integer: String) -> [String] {
        [
            """
            CREATE TABLE refund_reviews (
                transaction_id TEXT NOT NULL PRIMARY KEY,
                pending_refund_token TEXT NOT NULL,
                requested_at \(integer) NOT NULL
            )
            """
        ]
    }

    /// Records a review's token and enqueues its answer, inside the caller's transaction. The same token again
    /// (Pub/Sub delivers a message more than once) changes nothing and returns false. A new token replaces the
    /// held one and makes the transaction's answer a new job whatever state the old one was in: a settled answer
    /// answered the old review, a pending one may be in flight with the old token (its lease is taken away, so its
    /// sender's completion changes nothing and the new token is sent next), and one backing off carries the old
    /// review's attempts and clock.
    static func record(_ session: any SQLSession, transactionId: String, token: String, now: Int64) async throws -> Bool {
        let held = try await session.row(
            "SELECT pending_refund_token FROM refund_reviews WHERE transaction_id = \(transactionId)\(.forUpdate)")
        if try held?.text(0) == token { return false }
        _ = try await session.execute(
            """
            INSERT INTO refund_reviews (transaction_id, pending_refund_token, requested_at) VALUES (\(transactionId), \(token), \(now))
            ON CONFLICT (transaction_id) DO UPDATE SET pending_refund_token = excluded.pending_refund_token,
                requested_at = excluded.requested_at
            """)
        try await TransactionRows.audit(session, transactionId, now, "google-play-refund-review", "requested")
        _ = try await StoreOutboxRows.renewConsumption(session, transactionId: transactionId, now: now, evenIfPending: true)
        try await TransactionRows.audit(
            session, transactionId, now, StoreOutboxSchema.auditEvent(.consumption, "enqueued", store: .googlePlay),
            StoreOutboxSchema.api(.googlePlay) + " outbox")
        return true
    }
}
