import DepotCore

extension SQLLedger {
    package func recordTransaction(
        _ transaction: PurchaseTransaction, productType: ProductType?, now: Int64
    ) async throws(LedgerError)
        -> LedgerTransaction
    {
        try await self.transaction(.write, "recording transaction \(transaction.id)") { session in
            try await Self.record(transaction, productType: productType, in: session, now: now)
        }
    }

    /// Records a redemption in one transaction: reads the attempt before this one, records this attempt and the
    /// transaction, and reads the transaction's activity since `activitySince` (this attempt included).
    package func recordRedemption(
        _ transaction: PurchaseTransaction, productType: ProductType?, appAccountToken: String?, client: String,
        activitySince: Int64, now: Int64
    ) async throws(LedgerError) -> RecordedRedemption {
        let id = transaction.id
        return try await self.transaction(.write, "recording a redemption of \(id)") { session in
            // The previous attempt is read before this one is recorded, so attempts within one second count.
            let previous = try await session.row(
                "SELECT MAX(at) FROM redemption_attempts WHERE transaction_id = \(id)"
            )?.optionalInteger(0)
            try await session.execute(
                """
                INSERT INTO redemption_attempts (transaction_id, app_account_token, client, at)
                VALUES (\(id), \(appAccountToken), \(client), \(now))
                """)
            let stored = try await Self.record(transaction, productType: productType, in: session, now: now)
            let activity = try await session.row(
                """
                SELECT COUNT(DISTINCT app_account_token), COUNT(DISTINCT client) FROM redemption_attempts
                WHERE transaction_id = \(id) AND at >= \(activitySince)
                """)
            return RecordedRedemption(
                transaction: stored, previousAttempt: previous,
                activity: RedemptionActivity(
                    appAccountTokens: try activity?.int(0) ?? 0, clientAddresses: try activity?.int(1) ?? 0))
        }
    }

    /// Records a transaction (first seen, or presented again) within `session`.
    private static func record(
        _ transaction: PurchaseTransaction, productType: ProductType?, in session: any SQLSession, now: Int64
    ) async throws -> LedgerTransaction {
        let t = transaction
        let revocationReason: String? = t.revocationDate == nil ? nil : "signed transaction"
        // First sight: the insert wins once even when instances race (the loser waits, then does nothing).
        let r = t.revocation
        let inserted = try await session.execute(
            """
            INSERT INTO transactions (id, original_id, product_id, purchase_date_ms, expires_date_ms,
                revocation_date_ms, revocation_reason, quantity, app_account_token, environment, state,
                first_seen_at, last_seen_at, last_fact_signed_ms, product_type, store, store_product_id, purchase_token,
                ownership, revocation_type, revocation_percentage, revocation_at_ms, revoked_quantity, rental_period_s,
                rental_expiration_s)
            VALUES (\(t.id), \(t.originalId), \(t.productId), \(t.purchaseDate), \(t.expiresDate),
                \(t.revocationDate), \(revocationReason), \(t.quantity),
                \(t.appAccountToken), \(t.environment), 'pending', \(now), \(now), \(PresentedFacts.firstSight(t)),
                \(productType?.rawValue), \(t.store.rawValue), \(t.storeProductId), \(t.purchaseToken),
                \(t.ownership.rawValue), \(r?.kind.rawValue), \(r?.percentage), \(r?.at), \(r?.revokedQuantity ?? 0), \(t.rental?.rentalPeriod),
                \(t.rental?.expirationPeriod))
            ON CONFLICT (id) DO NOTHING
            """)
        if inserted > 0 {
            let owned = t.ownership == .purchased ? "" : ", \(t.ownership.rawValue)"
            let rented = t.rental.map { ", rental \($0.rentalPeriod) s, expiration \($0.expirationPeriod) s" } ?? ""
            try await TransactionRows.audit(
                session, t.id, now, AuditEventKind.redeemed, "product \(t.productId), \(t.environment)\(owned)\(rented)")
            try await Self.auditPresentedRevocation(t, known: nil, in: session, now: now)
        } else {
            try await Self.refresh(t, in: session, now: now)
        }
        guard let stored = try await TransactionRows.transaction(session, id: t.id) else {
            throw LedgerError.corrupt("transaction \(t.id) vanished while being recorded")
        }
        return stored
    }

    /// Merges what a known transaction presents again into its row, auditing a revocation or expiry learnt.
    private static func refresh(_ t: PurchaseTransaction, in session: any SQLSession, now: Int64) async throws {
        guard
            let row = try await session.row(
                """
                SELECT revocation_date_ms, expires_date_ms, last_fact_signed_ms, store, product_id, store_product_id,
                    purchase_token, revocation_type, revocation_percentage, revocation_at_ms, revoked_quantity
                FROM transactions
                WHERE id = \(t.id)\(.forUpdate)
                """)
        else { throw LedgerError.corrupt("transaction \(t.id) vanished") }
        if let conflict = TransactionIdentity(
            store: try row.text(3), productId: try row.text(4), storeProductId: try row.optionalText(5),
            purchaseToken: try row.optionalText(6)
        ).conflict(with: t) {
            throw LedgerError.transactionConflict("transaction \(t.id) was recorded with \(conflict)")
        }
        let known = PresentedFacts(
            revocationDate: try row.optionalInteger(0), revocation: try Self.revocation(row, from: 7, date: row.optionalInteger(0)),
            expiresDate: try row.optionalInteger(1), lastFactSignedDate: try row.optionalInteger(2))
        let merged = PresentedFacts.merge(known: known, presented: t)
        let revocation = merged.revocationDate, expiry = merged.expiresDate, detail = merged.revocation
        let reason: String? = revocation == nil ? nil : "signed transaction"
        // A rental's terms are the first record's: a transaction recorded without them was judged bought outright and
        // stays so whatever the configuration says now, unless the store itself says it was rented (Google's
        // productsv2, for a transaction first recorded without asking it).
        let learnt = t.rentalToldByStore == true ? t.rental : nil
        try await session.execute(
            """
            UPDATE transactions SET original_id = \(t.originalId), product_id = \(t.productId),
                purchase_date_ms = \(t.purchaseDate), expires_date_ms = \(expiry), revocation_date_ms = \(revocation),
                revocation_reason = COALESCE(revocation_reason, \(reason)), ownership = \(t.ownership.rawValue),
                revocation_type = \(detail?.kind.rawValue), revocation_percentage = \(detail?.percentage),
                revocation_at_ms = \(detail?.at), revoked_quantity = \(detail?.revokedQuantity ?? 0),
                quantity = \(t.quantity), app_account_token = COALESCE(\(t.appAccountToken), app_account_token),
                environment = \(t.environment), last_seen_at = \(.greatest)(last_seen_at, \(now)),
                last_fact_signed_ms = \(merged.lastFactSignedDate),
                store_product_id = COALESCE(store_product_id, \(t.storeProductId)),
                purchase_token = COALESCE(purchase_token, \(t.purchaseToken)),
                rental_period_s = COALESCE(rental_period_s, \(learnt?.rentalPeriod)),
                rental_expiration_s = COALESCE(rental_expiration_s, \(learnt?.expirationPeriod))
            WHERE id = \(t.id)
            """)
        if learnt != nil {
            // Terms learnt after a delivery was confirmed (the first record did not ask the store): the clock started
            // at that first confirmed delivery, not at some later finish.
            try await session.execute(
                """
                UPDATE transactions SET rental_started_at = (
                    SELECT MIN(confirmed_at) FROM deliveries WHERE deliveries.transaction_id = \(t.id))
                WHERE id = \(t.id) AND rental_period_s IS NOT NULL AND rental_started_at IS NULL
                """)
        }
        if merged != known, merged.revocationDate != known.revocationDate || merged.revocation != known.revocation {
            var presented = t
            presented.revocationDate = revocation
            presented.revocation = detail
            try await Self.auditPresentedRevocation(presented, known: known.revocation, in: session, now: now)
        }
        if expiry != known.expiresDate, let expiry {
            try await TransactionRows.audit(session, t.id, now, AuditEventKind.expiryUpdated, "expiresDate \(expiry)")
        }
    }

    /// Audits the revocation, or the refund of part of it, a presented transaction brought.
    private static func auditPresentedRevocation(
        _ t: PurchaseTransaction, known: PurchaseRevocation?, in session: any SQLSession, now: Int64
    ) async throws {
        let detail = t.revocation.map { ", " + $0.auditDetail(quantity: t.quantity) } ?? ""
        if let revocation = t.revocationDate {
            try await TransactionRows.audit(
                session, t.id, now, AuditEventKind.revoked, "revocationDate \(revocation) in the signed transaction\(detail)")
        } else if let partial = t.revocation, partial != known {
            try await TransactionRows.audit(
                session, t.id, now, AuditEventKind.refunded,
                "in the signed transaction at \(partial.at): \(partial.auditDetail(quantity: t.quantity))")
        }
    }

    /// The revocation detail in a row's `revocation_type`, `revocation_percentage`, `revocation_at_ms` and
    /// `revoked_quantity`, from column `index` on; nil when no type is recorded.
    static func revocation(_ row: SQLRow, from index: Int, date: Int64?) throws -> PurchaseRevocation? {
        guard let name = try row.optionalText(index) else { return nil }
        guard let kind = PurchaseRevocation.Kind(rawValue: name) else { throw LedgerError.corrupt("unknown revocation type \(name)") }
        return PurchaseRevocation(
            kind: kind, percentage: try row.optionalInteger(index + 1).map { Int(clamping: $0) },
            at: try row.optionalInteger(index + 2) ?? date ?? 0, revokedQuantity: try row.int(index + 3))
    }

    package func transaction(id: String) async throws(LedgerError) -> LedgerTransaction? {
        try await transaction(.read, "reading transaction \(id)") { session in
            try await TransactionRows.transaction(session, id: id)
        }
    }

    package func transactions(originalId: String) async throws(LedgerError) -> [PurchaseTransaction] {
        try await transaction(.read, "reading transactions of \(originalId)") { session in
            try await session.rows(
                """
                SELECT \(unescaped: TransactionRows.columns) FROM transactions WHERE original_id = \(originalId)
                ORDER BY purchase_date_ms, id
                """
            ).map { try TransactionRows.transaction($0).transaction }
        }
    }

    package func transactions(
        productId: String, appAccountToken: String
    ) async throws(LedgerError)
        -> [PurchaseTransaction]
    {
        try await transaction(.read, "reading transactions of \(productId)") { session in
            try await session.rows(
                """
                SELECT \(unescaped: TransactionRows.columns) FROM transactions
                WHERE product_id = \(productId) AND app_account_token = \(appAccountToken) ORDER BY purchase_date_ms, id
                """
            ).map { try TransactionRows.transaction($0).transaction }
        }
    }

    package func setRevocation(
        transactionId: String, revokedAt: Int64?, revocation: PurchaseRevocation?, reason: String, signedAt: Int64?, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await transaction(.write, "setting the revocation of \(transactionId)") { session in
            guard
                let row = try await session.row(
                    """
                    SELECT revocation_date_ms, last_fact_signed_ms, quantity, revocation_type, revocation_percentage,
                        revocation_at_ms, revoked_quantity
                    FROM transactions WHERE id = \(transactionId)\(.forUpdate)
                    """)
            else { return false }
            let known = try row.optionalInteger(0)
            let lastSigned = try row.optionalInteger(1)
            let quantity = try row.int(2)
            let knownDetail = try Self.revocation(row, from: 3, date: known)
            if let signedAt, let lastSigned, signedAt <= lastSigned { return true }
            if let signedAt {
                try await session.execute("UPDATE transactions SET last_fact_signed_ms = \(signedAt) WHERE id = \(transactionId)")
            }
            guard known != revokedAt || knownDetail != revocation else { return true }
            let revocationReason: String? = revokedAt == nil && revocation == nil ? nil : reason
            try await session.execute(
                """
                UPDATE transactions SET revocation_date_ms = \(revokedAt), revocation_reason = \(revocationReason),
                    revocation_type = \(revocation?.kind.rawValue), revocation_percentage = \(revocation?.percentage),
                    revocation_at_ms = \(revocation?.at), revoked_quantity = \(revocation?.revokedQuantity ?? 0)
                WHERE id = \(transactionId)
                """)
            let detail = revocation.map { ", " + $0.auditDetail(quantity: quantity) } ?? ""
            if let revokedAt {
                try await TransactionRows.audit(
                    session, transactionId, now, AuditEventKind.revoked, "\(reason), revocationDate \(revokedAt)\(detail)")
            } else if let revocation {
                try await TransactionRows.audit(
                    session, transactionId, now, AuditEventKind.refunded,
                    "\(reason) at \(revocation.at): \(revocation.auditDetail(quantity: quantity))")
            } else {
                try await TransactionRows.audit(session, transactionId, now, AuditEventKind.revocationCleared, reason)
            }
            return true
        }
    }

    package func revokeIfNotRevoked(
        transactionId: String, revokedAt: Int64, revocation: PurchaseRevocation?, reason: String, now: Int64
    ) async throws(LedgerError)
        -> Bool
    {
        try await transaction(.write, "revoking \(transactionId)") { session in
            guard
                let row = try await session.row(
                    """
                    SELECT quantity, revoked_quantity FROM transactions
                    WHERE id = \(transactionId) AND revocation_date_ms IS NULL\(.forUpdate)
                    """)
            else { return false }
            let quantity = try row.int(0)
            let knownUnits = try row.int(1)
            if let revocation, revocation.revokedQuantity < quantity {
                // Part of it: only more units than known are news (an overlapping poll sees the same void again).
                guard revocation.revokedQuantity > knownUnits else { return false }
                try await session.execute(
                    """
                    UPDATE transactions SET revocation_reason = \(reason), revocation_type = \(revocation.kind.rawValue),
                        revocation_percentage = \(revocation.percentage), revocation_at_ms = \(revocation.at),
                        revoked_quantity = \(revocation.revokedQuantity)
                    WHERE id = \(transactionId)
                    """)
                try await TransactionRows.audit(
                    session, transactionId, now, AuditEventKind.refunded,
                    "\(reason) at \(revocation.at): \(revocation.auditDetail(quantity: quantity))")
                return true
            }
            let whole = revocation.map {
                PurchaseRevocation(kind: $0.kind, percentage: $0.percentage, at: $0.at, revokedQuantity: quantity)
            }
            try await session.execute(
                """
                UPDATE transactions SET revocation_date_ms = \(revokedAt), revocation_reason = \(reason),
                    revocation_type = \(whole?.kind.rawValue), revocation_percentage = \(whole?.percentage),
                    revocation_at_ms = \(whole?.at), revoked_quantity = \(quantity)
                WHERE id = \(transactionId)
                """)
            let detail = whole.map { ", " + $0.auditDetail(quantity: quantity) } ?? ""
            try await TransactionRows.audit(
                session, transactionId, now, AuditEventKind.revoked, "\(reason), revocationDate \(revokedAt)\(detail)")
            return true
        }
    }

    package func revokedTransactionIds() async throws(LedgerError) -> Set<String> {
        try await transaction(.read, "reading revoked transactions") { session in
            Set(try await session.rows("SELECT id FROM transactions WHERE revocation_date_ms IS NOT NULL").map { try $0.text(0) })
        }
    }

    package func finishedConsumableIds(
        catalogConsumables: [String], finishedSince: Int64
    ) async throws(LedgerError)
        -> Set<String>
    {
        try await transaction(.read, "reading finished consumables") { session in
            let rows = try await session.rows(
                """
                SELECT id FROM transactions
                WHERE state = 'finished' AND finished_at >= \(finishedSince)
                    AND (product_type = \(ProductType.consumable.rawValue)
                        OR (product_type IS NULL AND product_id \(in: catalogConsumables)))
                """)
            return Set(try rows.map { try $0.text(0) })
        }
    }

    package func recordNotification(
        _ notification: NotificationRecord, enqueueConsumption: Bool, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        let n = notification
        return try await transaction(.write, "recording notification \(n.uuid)") { session in
            let inserted = try await session.execute(
                """
                INSERT INTO notifications (uuid, type, subtype, transaction_id, received_at)
                VALUES (\(n.uuid), \(n.type), \(n.subtype), \(n.transactionId), \(now))
                ON CONFLICT (uuid) DO NOTHING
                """)
            guard inserted == 1 else { return false }
            if let transactionId = n.transactionId {
                try await TransactionRows.audit(session, transactionId, now, AuditEventKind.notification, n.auditDetail)
                if enqueueConsumption { try await StoreOutboxRows.enqueueConsumption(session, transactionId: transactionId, now: now) }
            }
            return true
        }
    }

    package func lastNotificationRecordedAt() async throws(LedgerError) -> Int64? {
        try await transaction(.read, "reading the last notification") { session in
            try await session.row("SELECT MAX(received_at) FROM notifications")?.optionalInteger(0)
        }
    }
}

extension NotificationRecord {
    /// `TYPE/SUBTYPE uuid`, for the audit trail.
    var auditDetail: String {
        let kind = subtype.map { "\(type)/\($0)" } ?? type
        return "\(kind) \(uuid)"
    }
}
