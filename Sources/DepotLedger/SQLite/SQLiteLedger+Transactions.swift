import DepotCore
import GRDB

extension SQLiteLedger {
    package func recordTransaction(
        _ transaction: PurchaseTransaction, productType: ProductType?, now: Int64
    ) async throws(LedgerError)
        -> LedgerTransaction
    {
        try await write("recording transaction \(transaction.id)") { db in
            let t = transaction
            if let row = try Row.fetchOne(
                db, sql: "SELECT revocation_date_ms, expires_date_ms, last_fact_signed_ms FROM transactions WHERE id = ?",
                arguments: [t.id])
            {
                let known = PresentedFacts(
                    revocationDate: try row.decode(atIndex: 0), expiresDate: try row.decode(atIndex: 1),
                    lastFactSignedDate: try row.decode(atIndex: 2))
                let knownRevocation = known.revocationDate, knownExpiry = known.expiresDate
                let merged = PresentedFacts.merge(known: known, presented: t)
                let revocation = merged.revocationDate, expiry = merged.expiresDate
                try db.execute(
                    sql: """
                        UPDATE transactions SET original_id = ?, product_id = ?, purchase_date_ms = ?,
                            expires_date_ms = ?, revocation_date_ms = ?,
                            revocation_reason = COALESCE(revocation_reason, ?),
                            quantity = ?, app_account_token = COALESCE(?, app_account_token), environment = ?,
                            last_seen_at = MAX(last_seen_at, ?), last_fact_signed_ms = ?
                        WHERE id = ?
                        """,
                    arguments: [
                        t.originalId, t.productId, t.purchaseDate, expiry, revocation,
                        revocation == nil ? nil : "signed transaction", t.quantity,
                        t.appAccountToken, t.environment, now, merged.lastFactSignedDate, t.id,
                    ])
                if knownRevocation == nil, let revocation {
                    try Self.audit(
                        db, t.id, now, AuditEventKind.revoked, "revocationDate \(revocation) in the signed transaction")
                }
                if expiry != knownExpiry, let expiry {
                    try Self.audit(db, t.id, now, AuditEventKind.expiryUpdated, "expiresDate \(expiry)")
                }
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO transactions (id, original_id, product_id, purchase_date_ms, expires_date_ms,
                            revocation_date_ms, revocation_reason, quantity, app_account_token, environment, state,
                            first_seen_at, last_seen_at, finished_at, last_fact_signed_ms, product_type)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, NULL, ?, ?)
                        """,
                    arguments: [
                        t.id, t.originalId, t.productId, t.purchaseDate, t.expiresDate, t.revocationDate,
                        t.revocationDate == nil ? nil : "signed transaction", t.quantity, t.appAccountToken,
                        t.environment, now, now, PresentedFacts.firstSight(t), productType?.rawValue,
                    ])
                try Self.audit(db, t.id, now, AuditEventKind.redeemed, "product \(t.productId), \(t.environment)")
                if let revocation = t.revocationDate {
                    try Self.audit(
                        db, t.id, now, AuditEventKind.revoked, "revocationDate \(revocation) in the signed transaction")
                }
            }
            guard let stored = try Self.fetchTransaction(db, id: t.id) else {
                throw LedgerError.corrupt("transaction \(t.id) vanished while being recorded")
            }
            return stored
        }
    }

    package func transaction(id: String) async throws(LedgerError) -> LedgerTransaction? {
        try await read("reading transaction \(id)") { db in try Self.fetchTransaction(db, id: id) }
    }

    package func transactions(originalId: String) async throws(LedgerError) -> [PurchaseTransaction] {
        try await read("reading transactions of \(originalId)") { db in
            try Row.fetchAll(
                db,
                sql:
                    """
                    SELECT \(Self.transactionColumns) FROM transactions
                    WHERE original_id = ? ORDER BY purchase_date_ms, id
                    """,
                arguments: [originalId]
            ).map { try Self.decodeTransaction($0).transaction }
        }
    }

    package func transactions(
        productId: String, appAccountToken: String
    ) async throws(LedgerError)
        -> [PurchaseTransaction]
    {
        try await read("reading transactions of \(productId)") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.transactionColumns) FROM transactions
                    WHERE product_id = ? AND app_account_token = ? ORDER BY purchase_date_ms, id
                    """,
                arguments: [productId, appAccountToken]
            ).map { try Self.decodeTransaction($0).transaction }
        }
    }

    package func setRevocation(
        transactionId: String, revokedAt: Int64?, reason: String, signedAt: Int64?, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await write("setting the revocation of \(transactionId)") { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT revocation_date_ms, last_fact_signed_ms FROM transactions WHERE id = ?",
                    arguments: [transactionId])
            else { return false }
            let known: Int64? = try row.decode(atIndex: 0)
            let lastSigned: Int64? = try row.decode(atIndex: 1)
            if let signedAt, let lastSigned, signedAt <= lastSigned { return true }
            if let signedAt {
                try db.execute(
                    sql: "UPDATE transactions SET last_fact_signed_ms = ? WHERE id = ?", arguments: [signedAt, transactionId])
            }
            guard known != revokedAt else { return true }
            try db.execute(
                sql: "UPDATE transactions SET revocation_date_ms = ?, revocation_reason = ? WHERE id = ?",
                arguments: [revokedAt, revokedAt == nil ? nil : reason, transactionId])
            if let revokedAt {
                try Self.audit(db, transactionId, now, AuditEventKind.revoked, "\(reason), revocationDate \(revokedAt)")
            } else {
                try Self.audit(db, transactionId, now, AuditEventKind.revocationCleared, reason)
            }
            return true
        }
    }

    package func revokedTransactionIds() async throws(LedgerError) -> Set<String> {
        try await read("reading revoked transactions") { db in
            Set(try String.fetchAll(db, sql: "SELECT id FROM transactions WHERE revocation_date_ms IS NOT NULL"))
        }
    }

    package func finishedConsumableIds(
        catalogConsumables: [String], finishedSince: Int64
    ) async throws(LedgerError)
        -> Set<String>
    {
        try await read("reading finished consumables") { db in
            let marks = Array(repeating: "?", count: catalogConsumables.count).joined(separator: ", ")
            let unrecorded = catalogConsumables.isEmpty ? "" : " OR (product_type IS NULL AND product_id IN (\(marks)))"
            return Set(
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT id FROM transactions
                        WHERE state = 'finished' AND finished_at >= ?
                            AND (product_type = '\(ProductType.consumable.rawValue)'\(unrecorded))
                        """,
                    arguments: StatementArguments(
                        [finishedSince] + catalogConsumables.map { $0 as any DatabaseValueConvertible })))
        }
    }

    package func recordNotification(
        _ notification: NotificationRecord, enqueueConsumption: Bool, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await write("recording notification \(notification.uuid)") { db in
            let n = notification
            try db.execute(
                sql: """
                    INSERT INTO notifications (uuid, type, subtype, transaction_id, received_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (uuid) DO NOTHING
                    """,
                arguments: [n.uuid, n.type, n.subtype, n.transactionId, now])
            guard db.changesCount == 1 else { return false }
            if let transactionId = n.transactionId {
                try Self.audit(db, transactionId, now, AuditEventKind.notification, n.auditDetail)
                if enqueueConsumption { try Self.enqueueConsumption(db, transactionId: transactionId, now: now) }
            }
            return true
        }
    }

    package func activity(transactionId: String, since: Int64) async throws(LedgerError) -> RedemptionActivity {
        try await read("reading the activity of \(transactionId)") { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(DISTINCT app_account_token), COUNT(DISTINCT client) FROM redemption_attempts
                    WHERE transaction_id = ? AND at >= ?
                    """,
                arguments: [transactionId, since])
            guard let row else { return RedemptionActivity(appAccountTokens: 0, clientAddresses: 0) }
            return RedemptionActivity(
                appAccountTokens: try row.decode(atIndex: 0), clientAddresses: try row.decode(atIndex: 1))
        }
    }

    package func recordAttempt(
        transactionId: String, appAccountToken: String?, client: String, now: Int64
    )
        async throws(LedgerError)
    {
        try await write("recording an attempt on \(transactionId)") { db in
            try db.execute(
                sql:
                    """
                    INSERT INTO redemption_attempts (transaction_id, app_account_token, client, at)
                    VALUES (?, ?, ?, ?)
                    """,
                arguments: [transactionId, appAccountToken, client, now])
        }
    }

    // MARK: Rows

    static let transactionColumns = """
        id, original_id, product_id, purchase_date_ms, expires_date_ms, revocation_date_ms, quantity,
        app_account_token, environment, state, first_seen_at, finished_at, product_type
        """

    static func fetchTransaction(_ db: Database, id: String) throws -> LedgerTransaction? {
        try Row.fetchOne(db, sql: "SELECT \(transactionColumns) FROM transactions WHERE id = ?", arguments: [id])
            .map(decodeTransaction)
    }

    static func decodeTransaction(_ row: Row) throws -> LedgerTransaction {
        let stateName: String = try row.decode(atIndex: 9)
        guard let state = DeliveryState(rawValue: stateName) else {
            throw LedgerError.corrupt("unknown transaction state \(stateName)")
        }
        let transaction = PurchaseTransaction(
            id: try row.decode(atIndex: 0), originalId: try row.decode(atIndex: 1),
            productId: try row.decode(atIndex: 2),
            purchaseDate: try row.decode(atIndex: 3), expiresDate: try row.decode(atIndex: 4),
            revocationDate: try row.decode(atIndex: 5), quantity: try row.decode(atIndex: 6),
            appAccountToken: try row.decode(atIndex: 7), environment: try row.decode(atIndex: 8))
        return LedgerTransaction(
            transaction: transaction, state: state, firstSeenAt: try row.decode(atIndex: 10),
            finishedAt: try row.decode(atIndex: 11),
            productType: try TransactionRows.productType(row.decode(atIndex: 12), transactionId: transaction.id))
    }

    static func audit(_ db: Database, _ transactionId: String, _ at: Int64, _ event: String, _ detail: String) throws {
        try db.execute(
            sql: "INSERT INTO audit_events (transaction_id, at, event, detail) VALUES (?, ?, ?, ?)",
            arguments: [transactionId, at, event, detail])
    }
}

extension NotificationRecord {
    /// `TYPE/SUBTYPE uuid`, for the audit trail.
    var auditDetail: String {
        let kind = subtype.map { "\(type)/\($0)" } ?? type
        return "\(kind) \(uuid)"
    }
}
