import DepotCore
import Logging
import PostgresNIO

extension PostgresLedger {
    package func recordGrants(
        transactionId: String, deliveries: [PlannedDelivery], now: Int64
    )
        async throws(LedgerError)
    {
        // Sorted: concurrent writers lock delivery rows in one order, so they cannot deadlock.
        let deliveries = PlannedDelivery.inLockOrder(deliveries)
        guard !deliveries.isEmpty else { return }
        try await transact("recording grants for \(transactionId)") { c, logger in
            for d in deliveries {
                try await c.query(
                    """
                    INSERT INTO deliveries (transaction_id, content_id, version, digest, grants_issued,
                        first_granted_at, last_activity_at)
                    VALUES (\(transactionId), \(d.contentId), \(d.version), \(d.digest), 1, \(now), \(now))
                    ON CONFLICT (transaction_id, content_id, version) DO UPDATE SET
                        digest = EXCLUDED.digest, grants_issued = deliveries.grants_issued + 1,
                        first_granted_at = COALESCE(deliveries.first_granted_at, EXCLUDED.first_granted_at),
                        last_activity_at = GREATEST(deliveries.last_activity_at, EXCLUDED.last_activity_at)
                    """, logger: logger)
                try await c.query(
                    """
                    INSERT INTO offers (transaction_id, content_id, version, digest, first_offered_at)
                    VALUES (\(transactionId), \(d.contentId), \(d.version), \(d.digest), \(now)) ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            try await Self.audit(
                c, logger, transactionId, now, AuditEventKind.grantsIssued,
                deliveries.map(\.auditLabel).joined(separator: ", "))
        }
    }

    package func recordServed(
        transactionId: String, digest: String, range: Range<Int64>, client: String, now: Int64
    )
        async throws(LedgerError)
    {
        let sent = Int64(range.count)
        try await transact("recording bytes served for \(transactionId)") { c, logger in
            // The upsert locks the coverage row until commit: merges of one (transaction, bundle) from several
            // instances run one after the other, each reading the intervals the previous one committed.
            try await c.query(
                """
                INSERT INTO served_coverage (transaction_id, digest, bytes_covered, bytes_sent, requests,
                    first_served_at, last_served_at, last_client)
                VALUES (\(transactionId), \(digest), 0, \(sent), 1, \(now), \(now), \(client))
                ON CONFLICT (transaction_id, digest) DO UPDATE SET
                    bytes_sent = served_coverage.bytes_sent + EXCLUDED.bytes_sent,
                    requests = served_coverage.requests + 1,
                    last_served_at = GREATEST(served_coverage.last_served_at, EXCLUDED.last_served_at),
                    last_client = EXCLUDED.last_client
                """, logger: logger)
            guard !range.isEmpty else { return }
            let rows = try await c.query(
                """
                SELECT range_start, range_end FROM served_ranges
                WHERE transaction_id = \(transactionId) AND digest = \(digest)
                    AND range_start <= \(range.upperBound) AND range_end >= \(range.lowerBound)
                """, logger: logger
            ).collect()
            let stored = try rows.map { row throws -> Range<Int64> in
                let (start, end) = try row.decode((Int64, Int64).self)
                guard start < end else { throw LedgerError.corrupt("empty served range \(start)..<\(end)") }
                return start..<end
            }
            let merge = CoverageMerge(adding: range, to: stored)
            if !merge.absorbed.isEmpty {
                let starts = merge.absorbed.map(\.lowerBound)
                try await c.query(
                    """
                    DELETE FROM served_ranges
                    WHERE transaction_id = \(transactionId) AND digest = \(digest) AND range_start = ANY(\(starts))
                    """, logger: logger)
            }
            try await c.query(
                """
                INSERT INTO served_ranges (transaction_id, digest, range_start, range_end)
                VALUES (\(transactionId), \(digest), \(merge.merged.lowerBound), \(merge.merged.upperBound))
                """, logger: logger)
            try await c.query(
                """
                UPDATE served_coverage SET bytes_covered = bytes_covered + \(merge.growth)
                WHERE transaction_id = \(transactionId) AND digest = \(digest)
                """, logger: logger)
        }
    }

    package func finish(
        transactionId: String, claims: [ConfirmedDelivery], requiresDelivery: Bool, enqueueAppleFinish: Bool, now: Int64
    ) async throws(LedgerError) -> FinishOutcome {
        try await transact("finishing \(transactionId)") { c, logger in
            // FOR UPDATE: concurrent finishes (any instance) queue on the transaction row; the first commits
            // `finished`, the others then read it (READ COMMITTED re-reads the locked row) and answer
            // `firstTime: false`.
            let rows = try await c.query(
                "SELECT state FROM transactions WHERE id = \(transactionId) FOR UPDATE", logger: logger
            ).collect()
            guard let row = rows.first else { return .unknownTransaction }
            let state = try row.decode(String.self)
            let offered = try await Self.fetchOffers(c, logger, transactionId: transactionId)
            let confirmed: [PlannedDelivery]
            switch DeliveryConfirmation.judge(offered: offered, claims: claims, requiresDelivery: requiresDelivery) {
            case .complete(let offers): confirmed = offers
            case .incomplete(let missing, let wrongDigest): return .mismatch(missing: missing, wrongDigest: wrongDigest)
            case .nothingOffered: return .nothingOffered
            }
            for d in confirmed {
                try await c.query(
                    """
                    INSERT INTO deliveries (transaction_id, content_id, version, digest, grants_issued,
                        last_activity_at, confirmed_at, confirmed_digest)
                    VALUES (\(transactionId), \(d.contentId), \(d.version), \(d.digest), 0, \(now), \(now), \(d.digest))
                    ON CONFLICT (transaction_id, content_id, version) DO UPDATE SET
                        digest = EXCLUDED.digest,
                        confirmed_at = COALESCE(deliveries.confirmed_at, EXCLUDED.confirmed_at),
                        confirmed_digest = EXCLUDED.confirmed_digest
                    """, logger: logger)
            }
            guard state == DeliveryState.pending.rawValue else { return .finished(firstTime: false) }
            try await c.query(
                "UPDATE transactions SET state = 'finished', finished_at = \(now) WHERE id = \(transactionId)",
                logger: logger)
            if enqueueAppleFinish {
                try await Self.enqueueAppleJob(c, logger, kind: .finish, transactionId: transactionId, now: now)
            }
            try await Self.audit(
                c, logger, transactionId, now, AuditEventKind.finished,
                confirmed.isEmpty
                    ? "nothing to deliver" : "delivered " + confirmed.map(\.auditLabel).joined(separator: ", "))
            return .finished(firstTime: true)
        }
    }

    package func offers(transactionId: String) async throws(LedgerError) -> [PlannedDelivery] {
        try await transact("reading the offers of \(transactionId)") { c, logger in
            try await Self.fetchOffers(c, logger, transactionId: transactionId)
        }
    }

    static func fetchOffers(_ c: PostgresConnection, _ logger: Logger, transactionId: String) async throws -> [PlannedDelivery] {
        try await c.query(
            """
            SELECT content_id, version, digest FROM offers WHERE transaction_id = \(transactionId)
            ORDER BY content_id, version, digest
            """, logger: logger
        ).collect().map { row in
            let (contentId, version, digest) = try row.decode((String, String, String).self)
            return PlannedDelivery(contentId: contentId, version: version, digest: digest)
        }
    }

    package func unfinished(before: Int64, after: DeliveryKey?, limit: Int) async throws(LedgerError) -> [DeliveryStatus] {
        let start = after ?? DeliveryKey(transactionId: "", contentId: "", version: "")
        let rows = try await query(
            "listing unfinished deliveries",
            """
            SELECT \(unescaped: Self.deliveryColumns) FROM deliveries d
            JOIN transactions t ON t.id = d.transaction_id
            LEFT JOIN served_coverage c ON c.transaction_id = d.transaction_id AND c.digest = d.digest
            WHERE t.state = 'pending'
                AND GREATEST(d.last_activity_at, COALESCE(c.last_served_at, 0), t.last_seen_at) < \(before)
                AND (d.transaction_id COLLATE "C", d.content_id COLLATE "C", d.version COLLATE "C")
                    > (\(start.transactionId) COLLATE "C", \(start.contentId) COLLATE "C", \(start.version) COLLATE "C")
            ORDER BY d.transaction_id COLLATE "C", d.content_id COLLATE "C", d.version COLLATE "C"
            LIMIT \(Int64(clamping: limit))
            """)
        return try Self.decoding("listing unfinished deliveries") { try rows.map(Self.decodeDelivery) }
    }

    package func deliveries(transactionId: String) async throws(LedgerError) -> [DeliveryStatus] {
        let rows = try await query(
            "reading deliveries of \(transactionId)",
            """
            SELECT \(unescaped: Self.deliveryColumns) FROM deliveries d
            LEFT JOIN served_coverage c ON c.transaction_id = d.transaction_id AND c.digest = d.digest
            WHERE d.transaction_id = \(transactionId)
            ORDER BY d.content_id, d.version
            """)
        return try Self.decoding("reading deliveries of \(transactionId)") { try rows.map(Self.decodeDelivery) }
    }

    package func auditTrail(
        transactionId: String, afterSequence: Int64, limit: Int
    ) async throws(LedgerError)
        -> [AuditEvent]
    {
        let rows = try await query(
            "reading the audit trail of \(transactionId)",
            """
            SELECT id, at, transaction_id, event, detail FROM audit_events
            WHERE transaction_id = \(transactionId) AND id > \(afterSequence) ORDER BY id
            LIMIT \(Int64(clamping: limit))
            """
        )
        return try Self.decoding("reading the audit trail of \(transactionId)") {
            try rows.map { row in
                let (sequence, at, id, event, detail) = try row.decode((Int64, Int64, String, String, String).self)
                return AuditEvent(sequence: sequence, at: at, transactionId: id, event: event, detail: detail)
            }
        }
    }

    static let deliveryColumns = """
        d.transaction_id, d.content_id, d.version, d.digest, d.grants_issued, COALESCE(c.bytes_covered, 0),
        d.confirmed_at, GREATEST(d.last_activity_at, COALESCE(c.last_served_at, 0))
        """

    static func decodeDelivery(_ row: PostgresRow) throws -> DeliveryStatus {
        let (transactionId, contentId, version, digest, grants, covered, confirmedAt, lastActivityAt) = try row.decode(
            (String, String, String, String, Int64, Int64, Int64?, Int64).self)
        return DeliveryStatus(
            transactionId: transactionId,
            delivery: PlannedDelivery(contentId: contentId, version: version, digest: digest),
            grantsIssued: Int(grants), bytesCovered: covered, confirmedAt: confirmedAt, lastActivityAt: lastActivityAt)
    }
}
