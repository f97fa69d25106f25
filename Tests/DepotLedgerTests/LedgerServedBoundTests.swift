import DepotCore
import DepotTestSupport
import Testing

@testable import DepotLedger

/// Conformance: what one (transaction, bundle) stores of served-bytes coverage is bounded, the bound only ever
/// under-states the coverage, and each merge finds its neighbours through the primary key, on every engine.
@Suite struct LedgerServedBoundTests {
    static let limit = Int64(ServedRange.storedIntervalLimit)

    /// One-byte ranges two bytes apart: `count` intervals none of which touches another, starting at byte 0.
    static func apart(_ id: String, count: Int64, at: Int64 = 10) -> [ServedRange] {
        (0..<count).map {
            ServedRange(transactionId: id, digest: Sample.level1.digest, range: 2 * $0..<2 * $0 + 1, client: "192.0.2.1", at: at)
        }
    }

    /// The stored interval count of a coverage row, and its intervals counted row by row.
    static func intervals(_ ledger: any Ledger, _ transactionId: String) async throws -> [Int64] {
        let sql = try #require(ledger as? any SQLLedger)
        let digest = Sample.level1.digest
        return try await sql.transaction(.read, "counting intervals") { session in
            let row = try await session.row(
                """
                SELECT intervals, (SELECT COUNT(*) FROM served_ranges
                    WHERE transaction_id = \(transactionId) AND digest = \(digest))
                FROM served_coverage WHERE transaction_id = \(transactionId) AND digest = \(digest)
                """)
            return try row.map { [try $0.integer(0), try $0.integer(1)] } ?? []
        }
    }

    @Test(arguments: Engine.tested)
    func disjointRangesStopAtTheBoundWhileTouchingOnesAlwaysMerge(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Sample.transaction("flood"), now: 1)
            try await ledger.recordGrants(transactionId: "flood", deliveries: [Sample.level1], now: 2)
            let covered = { () async throws -> Int64? in try await ledger.delivery("flood", "level1")?.bytesCovered }
            let one = { (range: Range<Int64>) async throws -> Int in
                try await ledger.recordServed([
                    ServedRange(transactionId: "flood", digest: Sample.level1.digest, range: range, client: "192.0.2.1", at: 20)
                ])
            }
            // 1,100 bytes far apart: the first 1,024 are stored, the other 76 left out (and said so).
            #expect(try await ledger.recordServed(Self.apart("flood", count: 1_100)) == 1_100 - Int(Self.limit))
            #expect(try await covered() == Self.limit)
            #expect(try await Self.intervals(ledger, "flood") == [Self.limit, Self.limit])
            // Every request still counted, though its bytes are not all in the coverage.
            #expect(try await LedgerDeliveryTests.coverageRow(ledger, "flood", Sample.level1.digest).first == 1_100)
            // Past the bound, a range touching a stored interval is merged; one touching none is left out.
            let last = 2 * (Self.limit - 1)
            #expect(try await one(last + 1..<last + 2) == 0)
            #expect(try await covered() == Self.limit + 1)
            #expect(try await one(50_000..<50_001) == 1)
            #expect(try await covered() == Self.limit + 1)
            // A range bridging two intervals makes room for one more.
            #expect(try await one(0..<3) == 0)
            #expect(try await Self.intervals(ledger, "flood") == [Self.limit - 1, Self.limit - 1])
            #expect(try await one(50_000..<50_001) == 0)
            #expect(try await covered() == Self.limit + 3)
            // The whole bundle served at last: covered exactly, one interval.
            #expect(try await one(0..<60_000) == 0)
            #expect(try await covered() == 60_000)
            #expect(try await Self.intervals(ledger, "flood") == [1, 1])
            // A range served before, every byte of it, changes nothing.
            #expect(try await one(10..<20) == 0)
            #expect(try await covered() == 60_000)
        }
    }

    @Test(arguments: Engine.tested)
    func mergesFindTheirNeighboursThroughThePrimaryKey(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            for id in ["a", "b", "c"] {
                _ = try await ledger.recordTransaction(Sample.transaction(id), now: 1)
                try await ledger.recordGrants(transactionId: id, deliveries: [Sample.level1], now: 2)
                try await ledger.recordServed(Self.apart(id, count: Self.limit))
            }
            let sql = try #require(ledger as? any SQLLedger)
            let queries = [
                ServedCoverageRows.predecessor("b", Sample.level1.digest, lower: 1_000),
                ServedCoverageRows.followers("b", Sample.level1.digest, lower: 1_000, upper: 1_010),
            ]
            let plans = try await sql.transaction(.write, "explaining the merge's lookups") { session in
                var plans: [String] = []
                switch engine {
                case .sqlite:
                    for query in queries {
                        let rows = try await session.rows("EXPLAIN QUERY PLAN \(query)")
                        plans.append(try rows.map { try $0.text(3) }.joined(separator: "\n"))
                    }
                case .postgres:
                    try await session.execute("ANALYZE served_ranges")
                    for query in queries {
                        let rows = try await session.rows("EXPLAIN \(query)")
                        plans.append(try rows.map { try $0.text(0) }.joined(separator: "\n"))
                    }
                }
                return plans
            }
            for plan in plans {
                switch engine {
                case .sqlite:
                    // A search of the primary key's index on the whole key prefix and the start, not a scan.
                    #expect(plan.contains("SEARCH served_ranges USING INDEX sqlite_autoindex_served_ranges_1"), "\(plan)")
                    #expect(plan.contains("range_start"), "\(plan)")
                    #expect(!plan.contains("SCAN"), "\(plan)")
                case .postgres:
                    #expect(plan.contains("served_ranges_pkey"), "\(plan)")
                    #expect(plan.contains("range_start"), "\(plan)")
                    #expect(!plan.contains("Seq Scan"), "\(plan)")
                }
            }
        }
    }
}
