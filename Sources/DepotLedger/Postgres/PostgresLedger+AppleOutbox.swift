import Logging
import PostgresNIO

extension PostgresLedger {
    /// Enqueues a job for a transaction inside the caller's SQL transaction; nothing (false) when one of the kind
    /// exists.
    @discardableResult
    static func enqueueAppleJob(
        _ c: PostgresConnection, _ logger: Logger, kind: AppleJob.Kind, transactionId: String, now: Int64
    ) async throws -> Bool {
        let rows = try await c.query(
            """
            INSERT INTO apple_outbox (kind, transaction_id, environment, state, attempts, next_attempt_at, created_at,
                updated_at)
            SELECT \(kind.rawValue), id, environment, 'pending', 0, \(now), \(now), \(now) FROM transactions
            WHERE id = \(transactionId)
            ON CONFLICT (kind, transaction_id) DO NOTHING
            RETURNING id
            """, logger: logger
        ).collect()
        if !rows.isEmpty {
            try await audit(c, logger, transactionId, now, AppleOutboxSchema.auditEvent(kind, "enqueued"), "App Store Server API outbox")
        }
        return !rows.isEmpty
    }

    package func enqueueAppleFinish(transactionId: String, now: Int64) async throws(LedgerError) -> Bool {
        try await transact("enqueueing Finish Transaction for \(transactionId)") { c, logger in
            let rows = try await c.query(
                "SELECT state FROM transactions WHERE id = \(transactionId) FOR UPDATE", logger: logger
            ).collect()
            guard try rows.first?.decode(String.self) == "finished" else { return false }
            return try await Self.enqueueAppleJob(c, logger, kind: .finish, transactionId: transactionId, now: now)
        }
    }

    package func claimAppleJobs(
        owner: String, now: Int64, leaseSeconds: Int64, limit: Int
    ) async throws(LedgerError)
        -> [AppleJob]
    {
        // FOR UPDATE SKIP LOCKED: instances claiming together each take rows the others are not taking; a row
        // claimed and committed carries a running lease, so the next claim does not select it either.
        let rows = try await transact("claiming App Store outbox jobs") { c, logger in
            try await c.query(
                """
                UPDATE apple_outbox SET lease_owner = \(owner), lease_expires_at = \(now + leaseSeconds),
                    attempts = attempts + 1, updated_at = \(now)
                WHERE id IN (
                    SELECT id FROM apple_outbox
                    WHERE state = 'pending' AND next_attempt_at <= \(now)
                        AND (lease_expires_at IS NULL OR lease_expires_at <= \(now))
                    ORDER BY next_attempt_at, id LIMIT \(Int64(clamping: limit))
                    FOR UPDATE SKIP LOCKED)
                RETURNING \(unescaped: AppleOutboxSchema.columns)
                """, logger: logger
            ).collect()
        }
        return try Self.decoding("claiming App Store outbox jobs") {
            try rows.map(Self.decodeAppleJob).sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
        }
    }

    package func completeAppleJob(id: Int64, owner: String, now: Int64) async throws(LedgerError) -> Bool {
        try await settle(
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
        try await settle(
            id: id, now: now, what: nil,
            """
            UPDATE apple_outbox SET next_attempt_at = \(nextAttemptAt), lease_owner = NULL, lease_expires_at = NULL,
                last_error = \(error), updated_at = \(now)
            WHERE id = \(id) AND state = 'pending' AND lease_owner = \(owner)
            RETURNING transaction_id, kind, last_error
            """)
    }

    package func failAppleJob(id: Int64, owner: String, error: String, now: Int64) async throws(LedgerError) -> Bool {
        try await settle(
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
    private func settle(id: Int64, now: Int64, what: String?, _ update: PostgresQuery) async throws(LedgerError) -> Bool {
        try await transact("settling App Store outbox job \(id)") { c, logger in
            let rows = try await c.query(update, logger: logger).collect()
            guard let row = rows.first else { return false }
            let (transactionId, kindName, lastError) = try row.decode((String, String, String?).self)
            if let what, let kind = AppleJob.Kind(rawValue: kindName) {
                try await Self.audit(
                    c, logger, transactionId, now, AppleOutboxSchema.auditEvent(kind, what),
                    lastError ?? "App Store Server API acknowledged")
            }
            return true
        }
    }

    package func appleJobs(states: [AppleJob.State], afterId: Int64, limit: Int) async throws(LedgerError) -> [AppleJob] {
        let names = states.map(\.rawValue)
        let rows = try await query(
            "listing App Store outbox jobs",
            """
            SELECT \(unescaped: AppleOutboxSchema.columns) FROM apple_outbox
            WHERE state = ANY(\(names)) AND id > \(afterId) ORDER BY id LIMIT \(Int64(clamping: limit))
            """)
        return try Self.decoding("listing App Store outbox jobs") { try rows.map(Self.decodeAppleJob) }
    }

    package func appleJobs(transactionId: String) async throws(LedgerError) -> [AppleJob] {
        let rows = try await query(
            "reading App Store outbox jobs of \(transactionId)",
            """
            SELECT \(unescaped: AppleOutboxSchema.columns) FROM apple_outbox
            WHERE transaction_id = \(transactionId) ORDER BY id
            """)
        return try Self.decoding("reading App Store outbox jobs of \(transactionId)") { try rows.map(Self.decodeAppleJob) }
    }

    static func decodeAppleJob(_ row: PostgresRow) throws -> AppleJob {
        let (id, kindName, transactionId, environment, stateName, attempts, nextAttemptAt, leaseOwner) = try row.decode(
            (Int64, String, String, String, String, Int64, Int64, String?).self)
        let columns = row.makeRandomAccess()
        guard let kind = AppleJob.Kind(rawValue: kindName), let state = AppleJob.State(rawValue: stateName) else {
            throw LedgerError.corrupt("App Store outbox job with kind \(kindName) and state \(stateName)")
        }
        return AppleJob(
            id: id, kind: kind, transactionId: transactionId, environment: environment, state: state,
            attempts: Int(attempts), nextAttemptAt: nextAttemptAt, leaseOwner: leaseOwner,
            leaseExpiresAt: try columns[8].decode(Int64?.self), lastError: try columns[9].decode(String?.self),
            createdAt: try columns[10].decode(Int64.self), updatedAt: try columns[11].decode(Int64.self))
    }
}

extension PostgresLedger {
    package func lastNotificationRecordedAt() async throws(LedgerError) -> Int64? {
        let rows = try await query("reading the last notification", "SELECT MAX(received_at) FROM notifications")
        return try Self.decoding("reading the last notification") { try rows.first?.decode(Int64?.self) ?? nil }
    }
}

extension PostgresLedger {
    /// A consumption job for a transaction whose customer consented (a settled one is pending again: a new
    /// request deserves a new answer), else an audit entry saying why nothing is sent.
    static func enqueueConsumption(_ c: PostgresConnection, _ logger: Logger, transactionId: String, now: Int64) async throws {
        let consent = try await c.query(
            "SELECT consented_at FROM apple_consents WHERE transaction_id = \(transactionId)", logger: logger
        ).collect()
        guard !consent.isEmpty else {
            try await audit(
                c, logger, transactionId, now, AppleOutboxSchema.auditEvent(.consumption, "not-sent"), AppleOutboxSchema.noConsent)
            return
        }
        let rows = try await c.query(
            """
            INSERT INTO apple_outbox (kind, transaction_id, environment, state, attempts, next_attempt_at, created_at, updated_at)
            SELECT 'consumption', id, environment, 'pending', 0, \(now), \(now), \(now) FROM transactions WHERE id = \(transactionId)
            ON CONFLICT (kind, transaction_id) DO UPDATE SET state = 'pending', attempts = 0,
                next_attempt_at = EXCLUDED.next_attempt_at, lease_owner = NULL, lease_expires_at = NULL, last_error = NULL,
                created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at
            WHERE apple_outbox.state <> 'pending'
            RETURNING id
            """, logger: logger
        ).collect()
        if !rows.isEmpty {
            try await audit(
                c, logger, transactionId, now, AppleOutboxSchema.auditEvent(.consumption, "enqueued"), "App Store Server API outbox")
        }
    }

    package func setConsumptionConsent(transactionId: String, consented: Bool, now: Int64) async throws(LedgerError) -> Bool {
        try await transact("recording the consent for \(transactionId)") { c, logger in
            let known = try await c.query("SELECT id FROM transactions WHERE id = \(transactionId) FOR UPDATE", logger: logger).collect()
            guard !known.isEmpty else { return false }
            if consented {
                let rows = try await c.query(
                    """
                    INSERT INTO apple_consents (transaction_id, consented_at) VALUES (\(transactionId), \(now))
                    ON CONFLICT DO NOTHING RETURNING transaction_id
                    """, logger: logger
                ).collect()
                if !rows.isEmpty { try await Self.audit(c, logger, transactionId, now, "consumption-consent", "granted") }
            } else {
                let rows = try await c.query(
                    "DELETE FROM apple_consents WHERE transaction_id = \(transactionId) RETURNING transaction_id", logger: logger
                ).collect()
                if !rows.isEmpty { try await Self.audit(c, logger, transactionId, now, "consumption-consent", "withdrawn") }
            }
            return true
        }
    }

    package func consumptionConsentedAt(transactionId: String) async throws(LedgerError) -> Int64? {
        let rows = try await query(
            "reading the consent for \(transactionId)",
            "SELECT consented_at FROM apple_consents WHERE transaction_id = \(transactionId)")
        return try Self.decoding("reading the consent for \(transactionId)") { try rows.first?.decode(Int64.self) }
    }
}
