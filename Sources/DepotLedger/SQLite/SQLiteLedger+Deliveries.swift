import DepotCore
import GRDB

extension SQLiteLedger {
    package func recordGrants(
        transactionId: String, deliveries: [PlannedDelivery], now: Int64
    )
        async throws(LedgerError)
    {
        let deliveries = PlannedDelivery.inLockOrder(deliveries)
        guard !deliveries.isEmpty else { return }
        try await write("recording grants for \(transactionId)") { db in
            for delivery in deliveries {
                try db.execute(
                    sql: """
                        INSERT INTO deliveries (transaction_id, content_id, version, digest, grants_issued,
                            first_granted_at, last_activity_at)
                        VALUES (?, ?, ?, ?, 1, ?, ?)
                        ON CONFLICT (transaction_id, content_id, version) DO UPDATE SET
                            digest = excluded.digest, grants_issued = grants_issued + 1,
                            first_granted_at = COALESCE(first_granted_at, excluded.first_granted_at),
                            last_activity_at = MAX(last_activity_at, excluded.last_activity_at)
                        """,
                    arguments: [transactionId, delivery.contentId, delivery.version, delivery.digest, now, now])
                try db.execute(
                    sql: """
                        INSERT INTO offers (transaction_id, content_id, version, digest, first_offered_at)
                        VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                        """,
                    arguments: [transactionId, delivery.contentId, delivery.version, delivery.digest, now])
            }
            try Self.audit(
                db, transactionId, now, AuditEventKind.grantsIssued,
                deliveries.map(\.auditLabel).joined(separator: ", "))
        }
    }

    package func recordServed(
        transactionId: String, digest: String, range: Range<Int64>, client: String, now: Int64
    )
        async throws(LedgerError)
    {
        try await write("recording bytes served for \(transactionId)") { db in
            // The summary row first: in the IMMEDIATE transaction nothing else writes meanwhile anyway, and
            // the Postgres engine relies on the same order (the upsert locks the row, then intervals merge).
            try db.execute(
                sql: """
                    INSERT INTO served_coverage (transaction_id, digest, bytes_covered, bytes_sent, requests,
                        first_served_at, last_served_at, last_client)
                    VALUES (?, ?, 0, ?, 1, ?, ?, ?)
                    ON CONFLICT (transaction_id, digest) DO UPDATE SET
                        bytes_sent = bytes_sent + excluded.bytes_sent, requests = requests + 1,
                        last_served_at = MAX(last_served_at, excluded.last_served_at),
                        last_client = excluded.last_client
                    """,
                arguments: [transactionId, digest, range.count, now, now, client])
            guard !range.isEmpty else { return }
            let stored = try Row.fetchAll(
                db,
                sql: """
                    SELECT range_start, range_end FROM served_ranges
                    WHERE transaction_id = ? AND digest = ? AND range_start <= ? AND range_end >= ?
                    """,
                arguments: [transactionId, digest, range.upperBound, range.lowerBound]
            ).map { row throws -> Range<Int64> in
                let start: Int64 = try row.decode(atIndex: 0)
                let end: Int64 = try row.decode(atIndex: 1)
                guard start < end else { throw LedgerError.corrupt("empty served range \(start)..<\(end)") }
                return start..<end
            }
            let merge = CoverageMerge(adding: range, to: stored)
            for interval in merge.absorbed {
                try db.execute(
                    sql: "DELETE FROM served_ranges WHERE transaction_id = ? AND digest = ? AND range_start = ?",
                    arguments: [transactionId, digest, interval.lowerBound])
            }
            try db.execute(
                sql: "INSERT INTO served_ranges (transaction_id, digest, range_start, range_end) VALUES (?, ?, ?, ?)",
                arguments: [transactionId, digest, merge.merged.lowerBound, merge.merged.upperBound])
            try db.execute(
                sql:
                    """
                    UPDATE served_coverage SET bytes_covered = bytes_covered + ?
                    WHERE transaction_id = ? AND digest = ?
                    """,
                arguments: [merge.growth, transactionId, digest])
        }
    }

    package func finish(
        transactionId: String, claims: [ConfirmedDelivery], requiresDelivery: Bool, enqueueAppleFinish: Bool, now: Int64
    ) async throws(LedgerError) -> FinishOutcome {
        // BEGIN IMMEDIATE: the state read below and the update after it hold the write lock throughout, so
        // of concurrent finishes (any process) exactly one sees `pending`.
        try await write("finishing \(transactionId)") { db in
            guard
                let stateName = try String.fetchOne(
                    db, sql: "SELECT state FROM transactions WHERE id = ?", arguments: [transactionId])
            else { return .unknownTransaction }
            let offered = try Self.fetchOffers(db, transactionId: transactionId)
            let confirmed: [PlannedDelivery]
            switch DeliveryConfirmation.judge(offered: offered, claims: claims, requiresDelivery: requiresDelivery) {
            case .complete(let offers): confirmed = offers
            case .incomplete(let missing, let wrongDigest): return .mismatch(missing: missing, wrongDigest: wrongDigest)
            case .nothingOffered: return .nothingOffered
            }
            for delivery in confirmed {
                try db.execute(
                    sql: """
                        INSERT INTO deliveries (transaction_id, content_id, version, digest, grants_issued,
                            last_activity_at, confirmed_at, confirmed_digest)
                        VALUES (?, ?, ?, ?, 0, ?, ?, ?)
                        ON CONFLICT (transaction_id, content_id, version) DO UPDATE SET
                            digest = excluded.digest, confirmed_at = COALESCE(confirmed_at, excluded.confirmed_at),
                            confirmed_digest = excluded.confirmed_digest
                        """,
                    arguments: [
                        transactionId, delivery.contentId, delivery.version, delivery.digest, now, now, delivery.digest,
                    ])
            }
            guard stateName == DeliveryState.pending.rawValue else { return .finished(firstTime: false) }
            try db.execute(
                sql: "UPDATE transactions SET state = 'finished', finished_at = ? WHERE id = ?",
                arguments: [now, transactionId])
            if enqueueAppleFinish {
                try Self.enqueueAppleJob(db, kind: .finish, transactionId: transactionId, now: now)
            }
            try Self.audit(
                db, transactionId, now, AuditEventKind.finished,
                confirmed.isEmpty
                    ? "nothing to deliver" : "delivered " + confirmed.map(\.auditLabel).joined(separator: ", "))
            return .finished(firstTime: true)
        }
    }

    package func offers(transactionId: String) async throws(LedgerError) -> [PlannedDelivery] {
        try await read("reading the offers of \(transactionId)") { db in try Self.fetchOffers(db, transactionId: transactionId) }
    }

    static func fetchOffers(_ db: Database, transactionId: String) throws -> [PlannedDelivery] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT content_id, version, digest FROM offers WHERE transaction_id = ?
                ORDER BY content_id, version, digest
                """,
            arguments: [transactionId]
        ).map { row in
            PlannedDelivery(contentId: try row.decode(atIndex: 0), version: try row.decode(atIndex: 1), digest: try row.decode(atIndex: 2))
        }
    }

    package func unfinished(before: Int64, after: DeliveryKey?, limit: Int) async throws(LedgerError) -> [DeliveryStatus] {
        try await read("listing unfinished deliveries") { db in
            let start = after ?? DeliveryKey(transactionId: "", contentId: "", version: "")
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.deliveryColumns) FROM deliveries d
                    JOIN transactions t ON t.id = d.transaction_id
                    LEFT JOIN served_coverage c ON c.transaction_id = d.transaction_id AND c.digest = d.digest
                    WHERE t.state = 'pending'
                        AND MAX(d.last_activity_at, COALESCE(c.last_served_at, 0), t.last_seen_at) < ?
                        AND (d.transaction_id, d.content_id, d.version) > (?, ?, ?)
                    ORDER BY d.transaction_id, d.content_id, d.version
                    LIMIT ?
                    """,
                arguments: [before, start.transactionId, start.contentId, start.version, Int64(clamping: limit)]
            ).map(Self.decodeDelivery)
        }
    }

    package func deliveries(transactionId: String) async throws(LedgerError) -> [DeliveryStatus] {
        try await read("reading deliveries of \(transactionId)") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.deliveryColumns) FROM deliveries d
                    LEFT JOIN served_coverage c ON c.transaction_id = d.transaction_id AND c.digest = d.digest
                    WHERE d.transaction_id = ?
                    ORDER BY d.content_id, d.version
                    """,
                arguments: [transactionId]
            ).map(Self.decodeDelivery)
        }
    }

    package func auditTrail(
        transactionId: String, afterSequence: Int64, limit: Int
    ) async throws(LedgerError)
        -> [AuditEvent]
    {
        try await read("reading the audit trail of \(transactionId)") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, at, transaction_id, event, detail FROM audit_events
                    WHERE transaction_id = ? AND id > ? ORDER BY id LIMIT ?
                    """,
                arguments: [transactionId, afterSequence, Int64(clamping: limit)]
            ).map { row in
                AuditEvent(
                    sequence: try row.decode(atIndex: 0), at: try row.decode(atIndex: 1),
                    transactionId: try row.decode(atIndex: 2), event: try row.decode(atIndex: 3),
                    detail: try row.decode(atIndex: 4))
            }
        }
    }

    static let deliveryColumns = """
        d.transaction_id, d.content_id, d.version, d.digest, d.grants_issued, COALESCE(c.bytes_covered, 0),
        d.confirmed_at, MAX(d.last_activity_at, COALESCE(c.last_served_at, 0))
        """

    static func decodeDelivery(_ row: Row) throws -> DeliveryStatus {
        DeliveryStatus(
            transactionId: try row.decode(atIndex: 0),
            delivery: PlannedDelivery(
                contentId: try row.decode(atIndex: 1), version: try row.decode(atIndex: 2),
                digest: try row.decode(atIndex: 3)),
            grantsIssued: try row.decode(atIndex: 4), bytesCovered: try row.decode(atIndex: 5),
            confirmedAt: try row.decode(atIndex: 6), lastActivityAt: try row.decode(atIndex: 7))
    }
}
