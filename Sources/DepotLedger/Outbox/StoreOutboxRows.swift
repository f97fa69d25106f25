import DepotCore

/// Reading outbox rows, and the enqueueing an operation does inside its own transaction.
enum StoreOutboxRows {
    /// Enqueues a job for a transaction inside the caller's transaction; nothing (false) when one of the kind
    /// exists.
    @discardableResult
    static func enqueue(_ session: any SQLSession, kind: StoreJob.Kind, transactionId: String, now: Int64) async throws -> Bool {
        let inserted = try await session.execute(
            """
            INSERT INTO apple_outbox (kind, transaction_id, environment, state, attempts, next_attempt_at,
                created_at, updated_at)
            SELECT \(kind.rawValue), id, environment, 'pending', 0, \(now), \(now), \(now) FROM transactions
            WHERE id = \(transactionId)
            ON CONFLICT (kind, transaction_id) DO NOTHING
            """)
        guard inserted > 0 else { return false }
        let store = try await Self.store(session, transactionId: transactionId)
        try await TransactionRows.audit(
            session, transactionId, now, StoreOutboxSchema.auditEvent(kind, "enqueued", store: store),
            StoreOutboxSchema.api(store) + " outbox")
        return true
    }

    /// The store that sold a transaction (the App Store for one not recorded).
    static func store(_ session: any SQLSession, transactionId: String) async throws -> PurchaseStore {
        let name = try await session.row("SELECT store FROM transactions WHERE id = \(transactionId)")?.text(0)
        return name.flatMap(PurchaseStore.init(rawValue:)) ?? .appStore
    }

    /// A consumption job for a transaction whose customer consented (a settled one is pending again: a new
    /// request deserves a new answer), else an audit entry saying why nothing is sent.
    static func enqueueConsumption(_ session: any SQLSession, transactionId: String, now: Int64) async throws {
        guard try await session.row("SELECT consented_at FROM apple_consents WHERE transaction_id = \(transactionId)") != nil
        else {
            try await TransactionRows.audit(
                session, transactionId, now, StoreOutboxSchema.auditEvent(.consumption, "not-sent"), StoreOutboxSchema.noConsent)
            return
        }
        if try await renewConsumption(session, transactionId: transactionId, now: now, evenIfPending: false) {
            try await TransactionRows.audit(
                session, transactionId, now, StoreOutboxSchema.auditEvent(.consumption, "enqueued"), "App Store Server API outbox")
        }
    }

    /// Makes a transaction's consumption job a new one due `now` (a new one, or a settled one pending again; with
    /// `evenIfPending`, a pending one too, its lease, attempts and clock taken away); true when a row changed.
    static func renewConsumption(
        _ session: any SQLSession, transactionId: String, now: Int64, evenIfPending: Bool
    ) async throws -> Bool {
        // SQLite parses an upsert after `INSERT ... SELECT` only when the SELECT has a WHERE clause, as here.
        let condition: SQL = evenIfPending ? "" : "WHERE apple_outbox.state <> 'pending'"
        return try await session.execute(
            """
            INSERT INTO apple_outbox (kind, transaction_id, environment, state, attempts, next_attempt_at, created_at,
                updated_at)
            SELECT 'consumption', id, environment, 'pending', 0, \(now), \(now), \(now) FROM transactions WHERE id = \(transactionId)
            ON CONFLICT (kind, transaction_id) DO UPDATE SET state = 'pending', attempts = 0,
                next_attempt_at = excluded.next_attempt_at, lease_owner = NULL, lease_expires_at = NULL, last_error = NULL,
                created_at = excluded.created_at, updated_at = excluded.updated_at
            \(condition)
            """) > 0
    }

    /// A job from its columns, in `StoreOutboxSchema.columns` order.
    static func job(_ row: SQLRow) throws -> StoreJob {
        let kindName = try row.text(1)
        let stateName = try row.text(4)
        guard let kind = StoreJob.Kind(rawValue: kindName), let state = StoreJob.State(rawValue: stateName) else {
            throw LedgerError.corrupt("App Store outbox job with kind \(kindName) and state \(stateName)")
        }
        return StoreJob(
            id: try row.integer(0), kind: kind, transactionId: try row.text(2), environment: try row.text(3), state: state,
            attempts: try row.int(5), nextAttemptAt: try row.integer(6), leaseOwner: try row.optionalText(7),
            leaseExpiresAt: try row.optionalInteger(8), lastError: try row.optionalText(9), createdAt: try row.integer(10),
            updatedAt: try row.integer(11))
    }
}
