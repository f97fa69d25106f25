import DepotCore

/// The SQL of served-bytes coverage: each merge reads only the stored intervals next to the new range, through the
/// primary key `(transaction_id, digest, range_start)`, so its cost grows with the logarithm of the intervals stored,
/// not with their number.
enum ServedCoverageRows {
    /// How many intervals each coverage row holds, kept by every merge (SQLite `v13-served-intervals`, PostgreSQL 13):
    /// the bound `ServedRange.storedIntervalLimit` is checked without counting rows. Rows written before are counted
    /// once, here.
    static let intervalCountSchema: [String] = [
        "ALTER TABLE served_coverage ADD COLUMN intervals BIGINT NOT NULL DEFAULT 0 CHECK (intervals >= 0)",
        """
        UPDATE served_coverage SET intervals = (
            SELECT COUNT(*) FROM served_ranges r
            WHERE r.transaction_id = served_coverage.transaction_id AND r.digest = served_coverage.digest)
        """,
    ]

    /// The stored interval starting at or before `lower`, the latest such: the only one starting before a range
    /// that can touch it, the stored intervals being disjoint and apart.
    static func predecessor(_ transactionId: String, _ digest: BundleDigest, lower: Int64) -> SQL {
        """
        SELECT range_start, range_end FROM served_ranges
        WHERE transaction_id = \(transactionId) AND digest = \(digest) AND range_start <= \(lower)
        ORDER BY range_start DESC LIMIT 1
        """
    }

    /// The stored intervals starting after `lower` and at or before `upper`: every one a range `lower..<upper`
    /// overlaps or touches, besides the predecessor.
    static func followers(_ transactionId: String, _ digest: BundleDigest, lower: Int64, upper: Int64) -> SQL {
        """
        SELECT range_start, range_end FROM served_ranges
        WHERE transaction_id = \(transactionId) AND digest = \(digest)
            AND range_start > \(lower) AND range_start <= \(upper)
        ORDER BY range_start
        """
    }

    /// The stored intervals of rows read by `predecessor` or `followers`.
    static func intervals(_ rows: [SQLRow]) throws -> [Range<Int64>] {
        try rows.map { row throws -> Range<Int64> in
            let start = try row.integer(0)
            let end = try row.integer(1)
            guard start < end else { throw LedgerError.corrupt("empty served range \(start)..<\(end)") }
            return start..<end
        }
    }
}
