import DepotCore

extension SQLLedger {
    package func recordGrants(
        transactionId: String, deliveries: [PlannedDelivery], now: Int64
    )
        async throws(LedgerError)
    {
        // Sorted: concurrent writers lock delivery rows in one order, so they cannot deadlock.
        let deliveries = PlannedDelivery.inLockOrder(deliveries)
        guard !deliveries.isEmpty else { return }
        try await transaction(.write, "recording grants for \(transactionId)") { session in
            for d in deliveries {
                try await session.execute(
                    """
                    INSERT INTO deliveries (transaction_id, content_id, version, digest, grants_issued,
                        first_granted_at, last_activity_at)
                    VALUES (\(transactionId), \(d.contentId), \(d.version), \(d.digest), 1, \(now), \(now))
                    ON CONFLICT (transaction_id, content_id, version) DO UPDATE SET
                        digest = excluded.digest, grants_issued = deliveries.grants_issued + 1,
                        first_granted_at = COALESCE(deliveries.first_granted_at, excluded.first_granted_at),
                        last_activity_at = \(.greatest)(deliveries.last_activity_at, excluded.last_activity_at)
                    """)
                try await session.execute(
                    """
                    INSERT INTO offers (transaction_id, content_id, version, digest, first_offered_at)
                    VALUES (\(transactionId), \(d.contentId), \(d.version), \(d.digest), \(now)) ON CONFLICT DO NOTHING
                    """)
            }
            try await TransactionRows.audit(
                session, transactionId, now, AuditEventKind.grantsIssued, deliveries.map(\.auditLabel).joined(separator: ", "))
        }
    }

    package func finish(
        transactionId: String, claims: [ConfirmedDelivery], requiresDelivery: Bool, enqueueAppleFinish: Bool, now: Int64
    ) async throws(LedgerError) -> FinishOutcome {
        try await transaction(.write, "finishing \(transactionId)") { session in
            // Of concurrent finishes (any process, any instance) exactly one sees `pending`: SQLite's write
            // transaction holds the file's write lock from the state read to the update; on PostgreSQL the others
            // queue on the transaction row (FOR UPDATE), then read it `finished` (READ COMMITTED re-reads the
            // locked row) and answer `firstTime: false`.
            guard let row = try await session.row("SELECT state FROM transactions WHERE id = \(transactionId)\(.forUpdate)")
            else { return .unknownTransaction }
            let state = try row.text(0)
            let offered = try await DeliveryRows.offers(session, transactionId: transactionId)
            let confirmed: [PlannedDelivery]
            switch DeliveryConfirmation.judge(offered: offered, claims: claims, requiresDelivery: requiresDelivery) {
            case .complete(let offers): confirmed = offers
            case .incomplete(let missing, let wrongDigest): return .mismatch(missing: missing, wrongDigest: wrongDigest)
            case .nothingOffered: return .nothingOffered
            }
            for d in confirmed {
                try await session.execute(
                    """
                    INSERT INTO deliveries (transaction_id, content_id, version, digest, grants_issued,
                        last_activity_at, confirmed_at, confirmed_digest)
                    VALUES (\(transactionId), \(d.contentId), \(d.version), \(d.digest), 0, \(now), \(now), \(d.digest))
                    ON CONFLICT (transaction_id, content_id, version) DO UPDATE SET
                        digest = excluded.digest, confirmed_at = COALESCE(deliveries.confirmed_at, excluded.confirmed_at),
                        confirmed_digest = excluded.confirmed_digest
                    """)
            }
            // A rental's consumption starts at its first confirmed delivery, once: the clock is Depot's, never the app's.
            if !confirmed.isEmpty {
                let started = try await session.execute(
                    """
                    UPDATE transactions SET rental_started_at = \(now)
                    WHERE id = \(transactionId) AND rental_period_s IS NOT NULL AND rental_started_at IS NULL
                    """)
                if started > 0 {
                    try await TransactionRows.audit(session, transactionId, now, AuditEventKind.rentalStarted, "first confirmed delivery")
                }
            }
            guard state == DeliveryState.pending.rawValue else { return .finished(firstTime: false) }
            try await session.execute("UPDATE transactions SET state = 'finished', finished_at = \(now) WHERE id = \(transactionId)")
            if enqueueAppleFinish {
                try await StoreOutboxRows.enqueue(session, kind: .finish, transactionId: transactionId, now: now)
            }
            try await TransactionRows.audit(
                session, transactionId, now, AuditEventKind.finished,
                confirmed.isEmpty ? "nothing to deliver" : "delivered " + confirmed.map(\.auditLabel).joined(separator: ", "))
            return .finished(firstTime: true)
        }
    }

    package func offers(transactionId: String) async throws(LedgerError) -> [PlannedDelivery] {
        try await transaction(.read, "reading the offers of \(transactionId)") { session in
            try await DeliveryRows.offers(session, transactionId: transactionId)
        }
    }

    package func versionReach(productId: String) async throws(LedgerError) -> [VersionReach] {
        try await transaction(.read, "reading the reach of the versions of \(productId)") { session in
            try await session.rows(
                """
                SELECT content_id, version, COUNT(*), SUM(CASE WHEN confirmed_at IS NULL THEN 0 ELSE 1 END) FROM deliveries
                WHERE content_id IN (SELECT DISTINCT content_id FROM catalog_versions WHERE product_id = \(productId))
                GROUP BY content_id, version ORDER BY content_id, version
                """
            ).map { row in
                VersionReach(
                    contentId: try row.text(0), version: try row.text(1), offered: try row.integer(2), delivered: try row.integer(3))
            }
        }
    }

    package func unfinished(before: Int64, after: DeliveryKey?, limit: Int) async throws(LedgerError) -> [DeliveryStatus] {
        let start = after ?? DeliveryKey(transactionId: "", contentId: "", version: "")
        return try await transaction(.read, "listing unfinished deliveries") { session in
            try await session.rows(
                """
                SELECT \(DeliveryRows.columns) FROM deliveries d
                JOIN transactions t ON t.id = d.transaction_id
                LEFT JOIN served_coverage c ON c.transaction_id = d.transaction_id AND c.digest = d.digest
                WHERE t.state = 'pending'
                    AND \(.greatest)(d.last_activity_at, COALESCE(c.last_served_at, 0), t.last_seen_at) < \(before)
                    AND (d.transaction_id\(.binaryCollation), d.content_id\(.binaryCollation), d.version\(.binaryCollation))
                        > (\(start.transactionId)\(.binaryCollation), \(start.contentId)\(.binaryCollation),
                            \(start.version)\(.binaryCollation))
                ORDER BY d.transaction_id\(.binaryCollation), d.content_id\(.binaryCollation), d.version\(.binaryCollation)
                LIMIT \(Int64(clamping: limit))
                """
            ).map(DeliveryRows.status)
        }
    }

    package func pendingGooglePlayPurchases(purchasedFrom: Int64, until: Int64) async throws(LedgerError) -> Int {
        try await transaction(.read, "counting unconfirmed Google Play purchases") { session in
            try await session.row(
                """
                SELECT COUNT(*) FROM transactions t
                WHERE t.store = 'google-play' AND t.revocation_date_ms IS NULL
                    AND t.purchase_date_ms >= \(purchasedFrom) AND t.purchase_date_ms < \(until)
                    AND (t.state = 'pending' OR EXISTS (
                        SELECT 1 FROM apple_outbox o WHERE o.transaction_id = t.id AND o.kind = 'finish' AND o.state <> 'done'))
                """
            )?.int(0) ?? 0
        }
    }

    package func deliveries(transactionId: String) async throws(LedgerError) -> [DeliveryStatus] {
        try await transaction(.read, "reading deliveries of \(transactionId)") { session in
            try await session.rows(
                """
                SELECT \(DeliveryRows.columns) FROM deliveries d
                JOIN transactions t ON t.id = d.transaction_id
                LEFT JOIN served_coverage c ON c.transaction_id = d.transaction_id AND c.digest = d.digest
                WHERE d.transaction_id = \(transactionId)
                ORDER BY d.content_id, d.version
                """
            ).map(DeliveryRows.status)
        }
    }

    package func auditTrail(
        transactionId: String, afterSequence: Int64, limit: Int
    ) async throws(LedgerError)
        -> [AuditEvent]
    {
        try await transaction(.read, "reading the audit trail of \(transactionId)") { session in
            try await session.rows(
                """
                SELECT id, at, transaction_id, event, detail FROM audit_events
                WHERE transaction_id = \(transactionId) AND id > \(afterSequence) ORDER BY id LIMIT \(Int64(clamping: limit))
                """
            ).map { row in
                AuditEvent(
                    sequence: try row.integer(0), at: try row.integer(1), transactionId: try row.text(2),
                    event: try row.text(3), detail: try row.text(4))
            }
        }
    }
}
