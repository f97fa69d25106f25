extension SQLLedger {
    package func enqueueAppleFinish(transactionId: String, now: Int64) async throws(LedgerError) -> Bool {
        try await transaction(.write, "enqueueing Finish Transaction for \(transactionId)") { session in
            let row = try await session.row("SELECT state FROM transactions WHERE id = \(transactionId)\(.forUpdate)")
            guard try row?.text(0) == "finished" else { return false }
            return try await AppleOutboxRows.enqueue(session, kind: .finish, transactionId: transactionId, now: now)
        }
    }

    package func claimAppleJobs(
        owner: String, now: Int64, leaseSeconds: Int64, limit: Int
    ) async throws(LedgerError)
        -> [AppleJob]
    {
        // Instances claiming together each take rows the others are not taking: PostgreSQL skips the rows another
        // claim locked (FOR UPDATE SKIP LOCKED), SQLite's write transaction excludes every other claim. A row
        // claimed and committed carries a running lease, so the next claim does not select it either.
        try await transaction(.write, "claiming App Store outbox jobs") { session in
            try await session.rows(
                """
                UPDATE apple_outbox SET lease_owner = \(owner), lease_expires_at = \(now + leaseSeconds),
                    attempts = attempts + 1, updated_at = \(now)
                WHERE id IN (
                    SELECT id FROM apple_outbox
                    WHERE state = 'pending' AND next_attempt_at <= \(now)
                        AND (lease_expires_at IS NULL OR lease_expires_at <= \(now))
                    ORDER BY next_attempt_at, id LIMIT \(Int64(clamping: limit))\(.forUpdateSkipLocked))
                RETURNING \(unescaped: AppleOutboxSchema.columns)
                """
            ).map(AppleOutboxRows.job).sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
        }
    }

    package func completeAppleJob(id: Int64, owner: String, now: Int64) async throws(LedgerError) -> Bool {
        try await settleAppleJob(
            id: id, now: now, what: "sent",
            """
            UPDATE apple_outbox SET state = 'done', lease_owner = NULL, lease_expires_at = NULL, last_error = NULL,
                updated_at = \(now)
            WHERE id = \(id) AND state = 'pending' AND lease_owner = \(owner)
            RETURNING transaction_id, kind, last_error
            """)
    }

    package func retryAppleJob(
        id: Int64, owner: String, nextAttemptAt: Int64, error: String, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await settleAppleJob(
            id: id, now: now, what: nil,
            """
            UPDATE apple_outbox SET next_attempt_at = \(nextAttemptAt), lease_owner = NULL, lease_expires_at = NULL,
                last_error = \(error), updated_at = \(now)
            WHERE id = \(id) AND state = 'pending' AND lease_owner = \(owner)
            RETURNING transaction_id, kind, last_error
            """)
    }

    package func failAppleJob(id: Int64, owner: String, error: String, now: Int64) async throws(LedgerError) -> Bool {
        try await settleAppleJob(
            id: id, now: now, what: "failed",
            """
            UPDATE apple_outbox SET state = 'failed', lease_owner = NULL, lease_expires_at = NULL, last_error = \(error),
                updated_at = \(now)
            WHERE id = \(id) AND state = 'pending' AND lease_owner = \(owner)
            RETURNING transaction_id, kind, last_error
            """)
    }

    /// Runs one owner-guarded update returning the job's transaction, kind and last error; when it changed the
    /// job and `what` is given, audits it on the transaction.
    private func settleAppleJob(id: Int64, now: Int64, what: String?, _ update: SQL) async throws(LedgerError) -> Bool {
        try await transaction(.write, "settling App Store outbox job \(id)") { session in
            guard let row = try await session.row(update) else { return false }
            if let what, let kind = AppleJob.Kind(rawValue: try row.text(1)) {
                let transactionId = try row.text(0)
                let store = try await AppleOutboxRows.store(session, transactionId: transactionId)
                try await TransactionRows.audit(
                    session, transactionId, now, AppleOutboxSchema.auditEvent(kind, what, store: store),
                    try row.optionalText(2) ?? AppleOutboxSchema.api(store) + " acknowledged")
            }
            return true
        }
    }

    package func appleJobs(states: [AppleJob.State], afterId: Int64, limit: Int) async throws(LedgerError) -> [AppleJob] {
        guard !states.isEmpty else { return [] }
        return try await transaction(.read, "listing App Store outbox jobs") { session in
            try await session.rows(
                """
                SELECT \(unescaped: AppleOutboxSchema.columns) FROM apple_outbox
                WHERE state \(in: states.map(\.rawValue)) AND id > \(afterId) ORDER BY id LIMIT \(Int64(clamping: limit))
                """
            ).map(AppleOutboxRows.job)
        }
    }

    package func appleJobs(transactionId: String) async throws(LedgerError) -> [AppleJob] {
        try await transaction(.read, "reading App Store outbox jobs of \(transactionId)") { session in
            try await session.rows(
                "SELECT \(unescaped: AppleOutboxSchema.columns) FROM apple_outbox WHERE transaction_id = \(transactionId) ORDER BY id"
            ).map(AppleOutboxRows.job)
        }
    }

    package func appleJobCounts() async throws(LedgerError) -> [AppleJob.State: Int] {
        let counts = try await transaction(.read, "counting App Store outbox jobs") { session in
            try await session.rows("SELECT state, COUNT(*) FROM apple_outbox GROUP BY state").map { row in
                (try row.text(0), try row.int(1))
            }
        }
        return AppleJob.State.counts(counts)
    }

    package func setConsumptionConsent(transactionId: String, consented: Bool, now: Int64) async throws(LedgerError) -> Bool {
        try await transaction(.write, "recording the consent for \(transactionId)") { session in
            guard try await session.row("SELECT id FROM transactions WHERE id = \(transactionId)\(.forUpdate)") != nil else {
                return false
            }
            if consented {
                let granted = try await session.execute(
                    """
                    INSERT INTO apple_consents (transaction_id, consented_at) VALUES (\(transactionId), \(now))
                    ON CONFLICT DO NOTHING
                    """)
                if granted > 0 { try await TransactionRows.audit(session, transactionId, now, "consumption-consent", "granted") }
            } else {
                let withdrawn = try await session.execute("DELETE FROM apple_consents WHERE transaction_id = \(transactionId)")
                if withdrawn > 0 { try await TransactionRows.audit(session, transactionId, now, "consumption-consent", "withdrawn") }
            }
            return true
        }
    }

    package func consumptionConsentedAt(transactionId: String) async throws(LedgerError) -> Int64? {
        try await transaction(.read, "reading the consent for \(transactionId)") { session in
            try await session.row("SELECT consented_at FROM apple_consents WHERE transaction_id = \(transactionId)")?.integer(0)
        }
    }

    package func recordRefundReview(
        transactionId: String, pendingRefundToken: String, now: Int64
    ) async throws(LedgerError) -> Bool {
        try await transaction(.write, "recording a refund review of \(transactionId)") { session in
            guard try await session.row("SELECT id FROM transactions WHERE id = \(transactionId)\(.forUpdate)") != nil else {
                return false
            }
            return try await RefundReviewRows.record(session, transactionId: transactionId, token: pendingRefundToken, now: now)
        }
    }

    package func pendingRefundToken(transactionId: String) async throws(LedgerError) -> String? {
        try await transaction(.read, "reading the refund review of \(transactionId)") { session in
            try await session.row("SELECT pending_refund_token FROM refund_reviews WHERE transaction_id = \(transactionId)")?.text(0)
        }
    }
}
