import DepotCore

extension SQLLedger {
    @discardableResult
    package func recordServed(_ ranges: [ServedRange]) async throws(LedgerError) -> Int {
        guard let first = ranges.first else { return 0 }
        let what =
            ranges.count == 1
            ? "recording bytes served for \(first.transactionId)" : "recording \(ranges.count) served ranges"
        return try await transaction(.write, what) { session in
            var leftOut = 0
            for served in ServedRange.inLockOrder(ranges) {
                if try await !Self.merge(served, session) { leftOut += 1 }
            }
            return leftOut
        }
    }

    /// Merges one served range into its coverage, inside the caller's write transaction; false when the range was
    /// left out, touching none of the `ServedRange.storedIntervalLimit` intervals its (transaction, bundle) holds.
    ///
    /// Three lookups on the primary key, whatever the number of intervals stored: the one interval starting at or
    /// before the range, the ones starting inside it (each merged away, so they are paid for once), and the
    /// coverage row's interval count when the range would be a new interval.
    private static func merge(_ served: ServedRange, _ session: any SQLSession) async throws -> Bool {
        let (transactionId, digest, range, client, now) = (
            served.transactionId, served.digest, served.range, served.client, served.at
        )
        let (requests, bytesSent, firstAt) = (Int64(served.requests), served.bytesSent, served.firstAt)
        // The summary row first: on PostgreSQL the upsert locks the coverage row until commit, so merges of one
        // (transaction, bundle) from several instances run one after the other, each reading the intervals the
        // previous one committed (SQLite's write transaction excludes every other writer anyway).
        try await session.execute(
            """
            INSERT INTO served_coverage (transaction_id, digest, bytes_covered, bytes_sent, requests,
                first_served_at, last_served_at, last_client)
            VALUES (\(transactionId), \(digest), 0, \(bytesSent), \(requests), \(firstAt), \(now), \(client))
            ON CONFLICT (transaction_id, digest) DO UPDATE SET
                bytes_sent = served_coverage.bytes_sent + excluded.bytes_sent,
                requests = served_coverage.requests + excluded.requests,
                first_served_at = \(.least)(served_coverage.first_served_at, excluded.first_served_at),
                last_served_at = \(.greatest)(served_coverage.last_served_at, excluded.last_served_at),
                last_client = excluded.last_client
            """)
        guard !range.isEmpty else { return true }
        let before = try ServedCoverageRows.intervals(
            try await session.rows(ServedCoverageRows.predecessor(transactionId, digest, lower: range.lowerBound)))
        // Served before, every byte of it: nothing to change.
        if let previous = before.first, previous.lowerBound <= range.lowerBound, previous.upperBound >= range.upperBound {
            return true
        }
        let after = try ServedCoverageRows.intervals(
            try await session.rows(
                ServedCoverageRows.followers(transactionId, digest, lower: range.lowerBound, upper: range.upperBound)))
        let merge = CoverageMerge(adding: range, to: before + after)
        if merge.absorbed.isEmpty {
            let held =
                try await session.row(
                    "SELECT intervals FROM served_coverage WHERE transaction_id = \(transactionId) AND digest = \(digest)"
                )?.integer(0) ?? 0
            guard held < Int64(ServedRange.storedIntervalLimit) else { return false }
        } else {
            try await session.execute(
                """
                DELETE FROM served_ranges
                WHERE transaction_id = \(transactionId) AND digest = \(digest)
                    AND range_start \(in: merge.absorbed.map(\.lowerBound))
                """)
        }
        try await session.execute(
            """
            INSERT INTO served_ranges (transaction_id, digest, range_start, range_end)
            VALUES (\(transactionId), \(digest), \(merge.merged.lowerBound), \(merge.merged.upperBound))
            """)
        // One interval added, the absorbed ones removed; never below zero (rows from before the count existed are
        // counted by the migration, so this is only a guard).
        let change = Int64(1 - merge.absorbed.count)
        try await session.execute(
            """
            UPDATE served_coverage SET bytes_covered = bytes_covered + \(merge.growth),
                intervals = \(.greatest)(intervals + \(change), 0)
            WHERE transaction_id = \(transactionId) AND digest = \(digest)
            """)
        return true
    }
}
