import GRDB

extension SQLiteLedger {
    /// Enqueues a job for a transaction inside the caller's write transaction; nothing (false) when one of the
    /// kind exists.
    @discardableResult
    static func enqueueAppleJob(_ db: Database, kind: AppleJob.Kind, transactionId: String, now: Int64) throws -> Bool {
        try db.execute(
            sql: """
                INSERT INTO apple_outbox (kind, transaction_id, environment, state, attempts, next_attempt_at,
                    created_at, updated_at)
                SELECT ?, id, environment, 'pending', 0, ?, ?, ? FROM transactions WHERE id = ?
                ON CONFLICT (kind, transaction_id) DO NOTHING
                """,
            arguments: [kind.rawValue, now, now, now, transactionId])
        guard db.changesCount > 0 else { return false }
        try audit(db, transactionId, now, AppleOutboxSchema.auditEvent(kind, "enqueued"), "App Store Server API outbox")
        return true
    }

    package func enqueueAppleFinish(transactionId: String, now: Int64) async throws(LedgerError) -> Bool {
        try await write("enqueueing Finish Transaction for \(transactionId)") { db in
            let state = try String.fetchOne(db, sql: "SELECT state FROM transactions WHERE id = ?", arguments: [transactionId])
            guard state == "finished" else { return false }
            return try Self.enqueueAppleJob(db, kind: .finish, transactionId: transactionId, now: now)
        }
    }

    package func claimAppleJobs(
        owner: String, now: Int64, leaseSeconds: Int64, limit: Int
    ) async throws(LedgerError)
        -> [AppleJob]
    {
        // One writer at a time (BEGIN IMMEDIATE), in this process or another on the same file: the select and
        // the update below cannot interleave with another claim.
        try await write("claiming App Store outbox jobs") { db in
            let jobs = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(AppleOutboxSchema.columns) FROM apple_outbox
                    WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
                    ORDER BY next_attempt_at, id LIMIT ?
                    """,
                arguments: [now, now, Int64(clamping: limit)]
            ).map(Self.decodeAppleJob)
            return try jobs.map { job in
                try db.execute(
                    sql: """
                        UPDATE apple_outbox SET lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1, updated_at = ?
                        WHERE id = ?
                        """,
                    arguments: [owner, now + leaseSeconds, now, job.id])
                var claimed = job
                claimed.leaseOwner = owner
                claimed.leaseExpiresAt = now + leaseSeconds
                claimed.attempts += 1
                claimed.updatedAt = now
                return claimed
            }
        }
    }

    package func completeAppleJob(id: Int64, owner: String, now: Int64) async throws(LedgerError) -> Bool {
        try await settle(id: id, owner: owner, now: now, what: "sent") { db in
            try db.execute(
                sql: """
                    UPDATE apple_outbox SET state = 'done', lease_owner = NULL, lease_expires_at = NULL, last_error = NULL,
                        updated_at = ?
                    WHERE id = ? AND state = 'pending' AND lease_owner = ?
                    """,
                arguments: [now, id, owner])
        }
    }

    package func retryAppleJob(
        id: Int64, owner: String, nextAttemptAt: Int64, error: String, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await settle(id: id, owner: owner, now: now, what: nil) { db in
            try db.execute(
                sql: """
                    UPDATE apple_outbox SET next_attempt_at = ?, lease_owner = NULL, lease_expires_at = NULL, last_error = ?,
                        updated_at = ?
                    WHERE id = ? AND state = 'pending' AND lease_owner = ?
                    """,
                arguments: [nextAttemptAt, error, now, id, owner])
        }
    }

    package func failAppleJob(id: Int64, owner: String, error: String, now: Int64) async throws(LedgerError) -> Bool {
        try await settle(id: id, owner: owner, now: now, what: "failed") { db in
            try db.execute(
                sql: """
                    UPDATE apple_outbox SET state = 'failed', lease_owner = NULL, lease_expires_at = NULL, last_error = ?,
                        updated_at = ?
                    WHERE id = ? AND state = 'pending' AND lease_owner = ?
                    """,
                arguments: [error, now, id, owner])
        }
    }

    /// Runs one owner-guarded update; when it changed the job and `what` is given, audits it on the transaction.
    private func settle(
        id: Int64, owner: String, now: Int64, what: String?, _ update: @escaping @Sendable (Database) throws -> Void
    ) async throws(LedgerError) -> Bool {
        try await write("settling App Store outbox job \(id)") { db in
            try update(db)
            guard db.changesCount > 0 else { return false }
            if let what,
                let row = try Row.fetchOne(
                    db, sql: "SELECT transaction_id, kind, last_error FROM apple_outbox WHERE id = ?", arguments: [id]),
                let kind = AppleJob.Kind(rawValue: try row.decode(atIndex: 1))
            {
                let detail: String? = try row.decode(atIndex: 2)
                try Self.audit(
                    db, try row.decode(atIndex: 0), now, AppleOutboxSchema.auditEvent(kind, what),
                    detail ?? "App Store Server API acknowledged")
            }
            return true
        }
    }

    package func appleJobs(states: [AppleJob.State], afterId: Int64, limit: Int) async throws(LedgerError) -> [AppleJob] {
        guard !states.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: states.count).joined(separator: ", ")
        return try await read("listing App Store outbox jobs") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(AppleOutboxSchema.columns) FROM apple_outbox
                    WHERE state IN (\(marks)) AND id > ? ORDER BY id LIMIT ?
                    """,
                arguments: StatementArguments(
                    states.map { $0.rawValue as any DatabaseValueConvertible } + [afterId, Int64(clamping: limit)])
            ).map(Self.decodeAppleJob)
        }
    }

    package func appleJobs(transactionId: String) async throws(LedgerError) -> [AppleJob] {
        try await read("reading App Store outbox jobs of \(transactionId)") { db in
            try Row.fetchAll(
                db, sql: "SELECT \(AppleOutboxSchema.columns) FROM apple_outbox WHERE transaction_id = ? ORDER BY id",
                arguments: [transactionId]
            ).map(Self.decodeAppleJob)
        }
    }

    static func decodeAppleJob(_ row: Row) throws -> AppleJob {
        let kindName: String = try row.decode(atIndex: 1)
        let stateName: String = try row.decode(atIndex: 4)
        guard let kind = AppleJob.Kind(rawValue: kindName), let state = AppleJob.State(rawValue: stateName) else {
            throw LedgerError.corrupt("App Store outbox job with kind \(kindName) and state \(stateName)")
        }
        return AppleJob(
            id: try row.decode(atIndex: 0), kind: kind, transactionId: try row.decode(atIndex: 2),
            environment: try row.decode(atIndex: 3), state: state, attempts: try row.decode(atIndex: 5),
            nextAttemptAt: try row.decode(atIndex: 6), leaseOwner: try row.decode(atIndex: 7),
            leaseExpiresAt: try row.decode(atIndex: 8), lastError: try row.decode(atIndex: 9),
            createdAt: try row.decode(atIndex: 10), updatedAt: try row.decode(atIndex: 11))
    }
}

extension SQLiteLedger {
    package func lastNotificationRecordedAt() async throws(LedgerError) -> Int64? {
        try await read("reading the last notification") { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(received_at) FROM notifications")
        }
    }
}

extension SQLiteLedger {
    /// A consumption job for a transaction whose customer consented (a settled one is pending again: a new
    /// request deserves a new answer), else an audit entry saying why nothing is sent.
    static func enqueueConsumption(_ db: Database, transactionId: String, now: Int64) throws {
        let consent = try Int64.fetchOne(
            db, sql: "SELECT consented_at FROM apple_consents WHERE transaction_id = ?", arguments: [transactionId])
        guard consent != nil else {
            try audit(db, transactionId, now, AppleOutboxSchema.auditEvent(.consumption, "not-sent"), AppleOutboxSchema.noConsent)
            return
        }
        try db.execute(
            sql: """
                INSERT INTO apple_outbox (kind, transaction_id, environment, state, attempts, next_attempt_at, created_at,
                    updated_at)
                SELECT 'consumption', id, environment, 'pending', 0, ?, ?, ? FROM transactions WHERE id = ?
                ON CONFLICT (kind, transaction_id) DO UPDATE SET state = 'pending', attempts = 0,
                    next_attempt_at = excluded.next_attempt_at, lease_owner = NULL, lease_expires_at = NULL, last_error = NULL,
                    created_at = excluded.created_at, updated_at = excluded.updated_at
                WHERE apple_outbox.state <> 'pending'
                """,
            arguments: [now, now, now, transactionId])
        if db.changesCount > 0 {
            try audit(db, transactionId, now, AppleOutboxSchema.auditEvent(.consumption, "enqueued"), "App Store Server API outbox")
        }
    }

    package func setConsumptionConsent(transactionId: String, consented: Bool, now: Int64) async throws(LedgerError) -> Bool {
        try await write("recording the consent for \(transactionId)") { db in
            guard try String.fetchOne(db, sql: "SELECT id FROM transactions WHERE id = ?", arguments: [transactionId]) != nil
            else { return false }
            if consented {
                try db.execute(
                    sql: "INSERT INTO apple_consents (transaction_id, consented_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    arguments: [transactionId, now])
                if db.changesCount > 0 { try Self.audit(db, transactionId, now, "consumption-consent", "granted") }
            } else {
                try db.execute(sql: "DELETE FROM apple_consents WHERE transaction_id = ?", arguments: [transactionId])
                if db.changesCount > 0 { try Self.audit(db, transactionId, now, "consumption-consent", "withdrawn") }
            }
            return true
        }
    }

    package func consumptionConsentedAt(transactionId: String) async throws(LedgerError) -> Int64? {
        try await read("reading the consent for \(transactionId)") { db in
            try Int64.fetchOne(db, sql: "SELECT consented_at FROM apple_consents WHERE transaction_id = ?", arguments: [transactionId])
        }
    }
}
