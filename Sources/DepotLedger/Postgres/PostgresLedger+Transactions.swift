import DepotCore
import Logging
import PostgresNIO

extension PostgresLedger {
    package func recordTransaction(
        _ transaction: PurchaseTransaction, productType: ProductType?, now: Int64
    ) async throws(LedgerError)
        -> LedgerTransaction
    {
        let t = transaction
        let revocationReason: String? = t.revocationDate == nil ? nil : "signed transaction"
        let typeName = productType?.rawValue
        return try await transact("recording transaction \(t.id)") { c, logger in
            // First sight: the insert wins once even when instances race (the loser waits, then does nothing).
            let inserted = try await c.query(
                """
                INSERT INTO transactions (id, original_id, product_id, purchase_date_ms, expires_date_ms,
                    revocation_date_ms, revocation_reason, quantity, app_account_token, environment, state,
                    first_seen_at, last_seen_at, last_fact_signed_ms, product_type)
                VALUES (\(t.id), \(t.originalId), \(t.productId), \(t.purchaseDate), \(t.expiresDate),
                    \(t.revocationDate), \(revocationReason), \(Int64(t.quantity)), \(t.appAccountToken),
                    \(t.environment), 'pending', \(now), \(now), \(PresentedFacts.firstSight(t)), \(typeName))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """, logger: logger
            ).collect()
            if !inserted.isEmpty {
                try await Self.audit(
                    c, logger, t.id, now, AuditEventKind.redeemed, "product \(t.productId), \(t.environment)")
                if let revocation = t.revocationDate {
                    try await Self.audit(
                        c, logger, t.id, now, AuditEventKind.revoked,
                        "revocationDate \(revocation) in the signed transaction")
                }
            } else {
                let rows = try await c.query(
                    """
                    SELECT revocation_date_ms, expires_date_ms, last_fact_signed_ms FROM transactions
                    WHERE id = \(t.id) FOR UPDATE
                    """,
                    logger: logger
                ).collect()
                guard let row = rows.first else { throw LedgerError.corrupt("transaction \(t.id) vanished") }
                let (knownRevocation, knownExpiry, lastFact) = try row.decode((Int64?, Int64?, Int64?).self)
                let merged = PresentedFacts.merge(
                    known: PresentedFacts(revocationDate: knownRevocation, expiresDate: knownExpiry, lastFactSignedDate: lastFact),
                    presented: t)
                let revocation = merged.revocationDate, expiry = merged.expiresDate
                let newReason: String? = revocation == nil ? nil : "signed transaction"
                try await c.query(
                    """
                    UPDATE transactions SET original_id = \(t.originalId), product_id = \(t.productId),
                        purchase_date_ms = \(t.purchaseDate), expires_date_ms = \(expiry),
                        revocation_date_ms = \(revocation),
                        revocation_reason = COALESCE(revocation_reason, \(newReason)),
                        quantity = \(Int64(t.quantity)),
                        app_account_token = COALESCE(\(t.appAccountToken), app_account_token),
                        environment = \(t.environment), last_seen_at = GREATEST(last_seen_at, \(now)),
                        last_fact_signed_ms = \(merged.lastFactSignedDate)
                    WHERE id = \(t.id)
                    """, logger: logger)
                if knownRevocation == nil, let revocation {
                    try await Self.audit(
                        c, logger, t.id, now, AuditEventKind.revoked,
                        "revocationDate \(revocation) in the signed transaction")
                }
                if expiry != knownExpiry, let expiry {
                    try await Self.audit(c, logger, t.id, now, AuditEventKind.expiryUpdated, "expiresDate \(expiry)")
                }
            }
            guard let stored = try await Self.fetchTransaction(c, logger, id: t.id) else {
                throw LedgerError.corrupt("transaction \(t.id) vanished while being recorded")
            }
            return stored
        }
    }

    package func transaction(id: String) async throws(LedgerError) -> LedgerTransaction? {
        let rows = try await query(
            "reading transaction \(id)",
            "SELECT \(unescaped: Self.transactionColumns) FROM transactions WHERE id = \(id)")
        return try Self.decoding("reading transaction \(id)") { try rows.first.map(Self.decodeTransaction) }
    }

    package func transactions(originalId: String) async throws(LedgerError) -> [PurchaseTransaction] {
        let rows = try await query(
            "reading transactions of \(originalId)",
            """
            SELECT \(unescaped: Self.transactionColumns) FROM transactions WHERE original_id = \(originalId)
            ORDER BY purchase_date_ms, id
            """)
        return try Self.decoding("reading transactions of \(originalId)") {
            try rows.map { try Self.decodeTransaction($0).transaction }
        }
    }

    package func transactions(
        productId: String, appAccountToken: String
    ) async throws(LedgerError)
        -> [PurchaseTransaction]
    {
        let rows = try await query(
            "reading transactions of \(productId)",
            """
            SELECT \(unescaped: Self.transactionColumns) FROM transactions
            WHERE product_id = \(productId) AND app_account_token = \(appAccountToken) ORDER BY purchase_date_ms, id
            """)
        return try Self.decoding("reading transactions of \(productId)") {
            try rows.map { try Self.decodeTransaction($0).transaction }
        }
    }

    package func setRevocation(
        transactionId: String, revokedAt: Int64?, reason: String, signedAt: Int64?, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await transact("setting the revocation of \(transactionId)") { c, logger in
            let rows = try await c.query(
                """
                SELECT revocation_date_ms, last_fact_signed_ms FROM transactions WHERE id = \(transactionId) FOR UPDATE
                """, logger: logger
            ).collect()
            guard let row = rows.first else { return false }
            let (known, lastSigned) = try row.decode((Int64?, Int64?).self)
            if let signedAt, let lastSigned, signedAt <= lastSigned { return true }
            if let signedAt {
                try await c.query(
                    "UPDATE transactions SET last_fact_signed_ms = \(signedAt) WHERE id = \(transactionId)", logger: logger)
            }
            guard known != revokedAt else { return true }
            try await c.query(
                """
                UPDATE transactions
                SET revocation_date_ms = \(revokedAt), revocation_reason = \(revokedAt == nil ? nil : reason)
                WHERE id = \(transactionId)
                """, logger: logger)
            if let revokedAt {
                try await Self.audit(
                    c, logger, transactionId, now, AuditEventKind.revoked, "\(reason), revocationDate \(revokedAt)")
            } else {
                try await Self.audit(c, logger, transactionId, now, AuditEventKind.revocationCleared, reason)
            }
            return true
        }
    }

    package func revokedTransactionIds() async throws(LedgerError) -> Set<String> {
        let rows = try await query(
            "reading revoked transactions", "SELECT id FROM transactions WHERE revocation_date_ms IS NOT NULL")
        return try Self.decoding("reading revoked transactions") { Set(try rows.map { try $0.decode(String.self) }) }
    }

    package func finishedConsumableIds(
        catalogConsumables: [String], finishedSince: Int64
    ) async throws(LedgerError)
        -> Set<String>
    {
        let consumable = ProductType.consumable.rawValue
        let rows = try await query(
            "reading finished consumables",
            """
            SELECT id FROM transactions
            WHERE state = 'finished' AND finished_at >= \(finishedSince)
                AND (product_type = \(consumable) OR (product_type IS NULL AND product_id = ANY(\(catalogConsumables))))
            """)
        return try Self.decoding("reading finished consumables") { Set(try rows.map { try $0.decode(String.self) }) }
    }

    package func recordNotification(
        _ notification: NotificationRecord, enqueueConsumption: Bool, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        let n = notification
        return try await transact("recording notification \(n.uuid)") { c, logger in
            let inserted = try await c.query(
                """
                INSERT INTO notifications (uuid, type, subtype, transaction_id, received_at)
                VALUES (\(n.uuid), \(n.type), \(n.subtype), \(n.transactionId), \(now))
                ON CONFLICT (uuid) DO NOTHING RETURNING uuid
                """, logger: logger
            ).collect()
            guard !inserted.isEmpty else { return false }
            if let transactionId = n.transactionId {
                try await Self.audit(c, logger, transactionId, now, AuditEventKind.notification, n.auditDetail)
                if enqueueConsumption { try await Self.enqueueConsumption(c, logger, transactionId: transactionId, now: now) }
            }
            return true
        }
    }

    package func activity(transactionId: String, since: Int64) async throws(LedgerError) -> RedemptionActivity {
        let rows = try await query(
            "reading the activity of \(transactionId)",
            """
            SELECT COUNT(DISTINCT app_account_token), COUNT(DISTINCT client) FROM redemption_attempts
            WHERE transaction_id = \(transactionId) AND at >= \(since)
            """)
        return try Self.decoding("reading the activity of \(transactionId)") {
            guard let row = rows.first else { return RedemptionActivity(appAccountTokens: 0, clientAddresses: 0) }
            let (tokens, clients) = try row.decode((Int64, Int64).self)
            return RedemptionActivity(appAccountTokens: Int(tokens), clientAddresses: Int(clients))
        }
    }

    package func recordAttempt(
        transactionId: String, appAccountToken: String?, client: String, now: Int64
    )
        async throws(LedgerError)
    {
        try await transact("recording an attempt on \(transactionId)") { c, logger in
            _ = try await c.query(
                """
                INSERT INTO redemption_attempts (transaction_id, app_account_token, client, at)
                VALUES (\(transactionId), \(appAccountToken), \(client), \(now))
                """, logger: logger)
        }
    }

    // MARK: Rows

    static let transactionColumns = """
        id, original_id, product_id, purchase_date_ms, expires_date_ms, revocation_date_ms, quantity,
        app_account_token, environment, state, first_seen_at, finished_at, product_type
        """

    static func fetchTransaction(
        _ c: PostgresConnection, _ logger: Logger, id: String
    ) async throws
        -> LedgerTransaction?
    {
        let rows = try await c.query(
            "SELECT \(unescaped: transactionColumns) FROM transactions WHERE id = \(id)", logger: logger
        ).collect()
        return try rows.first.map(decodeTransaction)
    }

    static func decodeTransaction(_ row: PostgresRow) throws -> LedgerTransaction {
        let (
            id, originalId, productId, purchaseDate, expiresDate, revocationDate, quantity, token, environment,
            stateName,
            firstSeenAt, finishedAt, typeName
        ) = try row.decode(
            (String, String, String, Int64, Int64?, Int64?, Int64, String?, String, String, Int64, Int64?, String?).self)
        guard let state = DeliveryState(rawValue: stateName) else {
            throw LedgerError.corrupt("unknown transaction state \(stateName)")
        }
        let transaction = PurchaseTransaction(
            id: id, originalId: originalId, productId: productId, purchaseDate: purchaseDate, expiresDate: expiresDate,
            revocationDate: revocationDate, quantity: Int(quantity), appAccountToken: token, environment: environment)
        return LedgerTransaction(
            transaction: transaction, state: state, firstSeenAt: firstSeenAt, finishedAt: finishedAt,
            productType: try TransactionRows.productType(typeName, transactionId: id))
    }

    /// Turns a decoding failure of rows already read into a ledger error.
    static func decoding<T>(_ what: String, _ body: () throws -> T) throws(LedgerError) -> T {
        do {
            return try body()
        } catch {
            throw ledgerError(error, while: what)
        }
    }

    static func audit(
        _ c: PostgresConnection, _ logger: Logger, _ transactionId: String, _ at: Int64, _ event: String,
        _ detail: String
    ) async throws {
        try await c.query(
            """
            INSERT INTO audit_events (transaction_id, at, event, detail)
            VALUES (\(transactionId), \(at), \(event), \(detail))
            """, logger: logger)
    }
}
