import DepotTestSupport
import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: grants, served-bytes coverage and the unfinished-delivery listing, on every engine.
@Suite struct LedgerDeliveryTests {
    @Test(arguments: Engine.tested)
    func grantsAreCountedPerDelivery(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Sample.transaction("1000"), now: 50)
            try await ledger.recordGrants(transactionId: "1000", deliveries: [Sample.level1, Sample.level2], now: 100)
            try await ledger.recordGrants(transactionId: "1000", deliveries: [Sample.level1], now: 150)
            try await ledger.recordGrants(transactionId: "1000", deliveries: [], now: 160)

            let deliveries = try await ledger.deliveries(transactionId: "1000")
            #expect(
                deliveries == [
                    DeliveryStatus(
                        transactionId: "1000", delivery: Sample.level1, grantsIssued: 2, bytesCovered: 0,
                        confirmedAt: nil,
                        lastActivityAt: 150),
                    DeliveryStatus(
                        transactionId: "1000", delivery: Sample.level2, grantsIssued: 1, bytesCovered: 0,
                        confirmedAt: nil,
                        lastActivityAt: 100),
                ])
            #expect(try await ledger.deliveries(transactionId: "none").isEmpty)
            #expect(try await ledger.events("1000") == ["redeemed", "grants-issued", "grants-issued"])
        }
    }

    /// Each step: a range served, then the coverage expected (bytes in the union of every range so far).
    static let coverageSteps: [(range: Range<Int64>, covered: Int64)] = [
        (0..<100, 100),  // first interval
        (200..<300, 200),  // disjoint
        (100..<200, 300),  // adjacent on both sides: bridges into 0..<300
        (250..<400, 400),  // overlapping the end
        (1_000..<1_100, 500),  // disjoint again
        (0..<50, 500),  // inside what is covered
        (10..<10, 500),  // empty
        (399..<1_001, 1_100),  // overlaps both neighbours: one interval 0..<1100
        (1_100..<1_101, 1_101),  // adjacent at the end
        (0..<2_000, 2_000),  // swallows everything
    ]

    @Test(arguments: Engine.tested)
    func servedRangesMergeIntoCoverage(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Sample.transaction("2000"), now: 1)
            try await ledger.recordGrants(transactionId: "2000", deliveries: [Sample.level1, Sample.level2], now: 2)
            for (step, (range, covered)) in Self.coverageSteps.enumerated() {
                try await ledger.recordServed(
                    transactionId: "2000", digest: Sample.level1.digest, range: range, client: "192.0.2.1",
                    now: 10 + Int64(step))
                let status = try await ledger.delivery("2000", "level1")
                #expect(status?.bytesCovered == covered, "after serving \(range)")
            }
            #expect(
                try await ledger.delivery("2000", "level1")?.lastActivityAt == 10 + Int64(Self.coverageSteps.count - 1))

            // Coverage is per transaction and bundle: other digests and other transactions are apart.
            try await ledger.recordServed(
                transactionId: "2000", digest: Sample.level2.digest, range: 5..<15, client: "192.0.2.1", now: 50)
            try await ledger.recordServed(
                transactionId: "2001", digest: Sample.level1.digest, range: 0..<5_000, client: "192.0.2.2", now: 50)
            #expect(try await ledger.delivery("2000", "level2")?.bytesCovered == 10)
            #expect(try await ledger.delivery("2000", "level1")?.bytesCovered == 2_000)
        }
    }

    @Test(arguments: Engine.tested)
    func aBatchOfServedRangesMergesAsTheRangesDoOneByOne(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Sample.transaction("2000"), now: 1)
            try await ledger.recordGrants(transactionId: "2000", deliveries: [Sample.level1, Sample.level2], now: 2)
            // The coverage steps of one bundle, with ranges of another bundle and another transaction between them:
            // one ledger transaction, whose rows are locked in another order than the batch's.
            var batch: [ServedRange] = []
            for (step, (range, _)) in Self.coverageSteps.enumerated() {
                batch.append(
                    .init(transactionId: "2000", digest: Sample.level1.digest, range: range, client: "192.0.2.1", at: 10 + Int64(step)))
                batch.append(
                    .init(
                        transactionId: "2000", digest: Sample.level2.digest, range: Int64(step)..<Int64(step + 2), client: "192.0.2.1",
                        at: 10))
                batch.append(.init(transactionId: "1999", digest: Sample.level1.digest, range: 0..<7, client: "192.0.2.2", at: 10))
            }
            try await ledger.recordServed(batch)
            let level1 = try #require(try await ledger.delivery("2000", "level1"))
            #expect(level1.bytesCovered == Self.coverageSteps.last?.1)
            // The last range of a bundle in the batch is the last one recorded for it.
            #expect(level1.lastActivityAt == 10 + Int64(Self.coverageSteps.count - 1))
            #expect(try await ledger.delivery("2000", "level2")?.bytesCovered == Int64(Self.coverageSteps.count + 1))
            // What the coverage rows count: every range a request (level1's steps, the empty one too), the bytes each
            // sent, and the earliest and latest times of the batch.
            let steps = Self.coverageSteps
            #expect(
                try await Self.coverageRow(ledger, "2000", Sample.level1.digest)
                    == [steps.count, steps.reduce(0) { $0 + $1.0.count }, 10, 10 + steps.count - 1])

            // Ranges of one bundle that stay apart are several intervals merged in the same ledger transaction.
            _ = try await ledger.recordTransaction(Sample.transaction("2002"), now: 1)
            try await ledger.recordGrants(transactionId: "2002", deliveries: [Sample.level1], now: 2)
            try await ledger.recordServed(
                [(0..<10, 30), (100..<110, 20), (5..<15, 40), (200..<200, 25)].map {
                    ServedRange(transactionId: "2002", digest: Sample.level1.digest, range: $0.0, client: "192.0.2.3", at: $0.1)
                })
            #expect(try await ledger.delivery("2002", "level1")?.bytesCovered == 25)
            #expect(try await Self.coverageRow(ledger, "2002", Sample.level1.digest) == [4, 30, 20, 40])
            // Served again later, one range at a time: the counts add up, the first time stays.
            try await ledger.recordServed(
                transactionId: "2002", digest: Sample.level1.digest, range: 105..<120, client: "192.0.2.3", now: 50)
            #expect(try await ledger.delivery("2002", "level1")?.bytesCovered == 35)
            #expect(try await Self.coverageRow(ledger, "2002", Sample.level1.digest) == [5, 45, 20, 50])
            // A range recorded late whose answer was earlier (another instance's batch) widens the times the same way.
            try await ledger.recordServed(
                transactionId: "2002", digest: Sample.level1.digest, range: 0..<1, client: "192.0.2.3", now: 15)
            #expect(try await Self.coverageRow(ledger, "2002", Sample.level1.digest) == [6, 46, 15, 50])
            // An empty batch is no transaction at all, and changes nothing.
            try await ledger.recordServed([])
            #expect(try await Self.coverageRow(ledger, "2002", Sample.level1.digest) == [6, 46, 15, 50])
        }
    }

    /// `requests`, `bytes_sent`, `first_served_at` and `last_served_at` of a coverage row, which no `Ledger` method
    /// reads back.
    static func coverageRow(_ ledger: any Ledger, _ transactionId: String, _ digest: BundleDigest) async throws -> [Int] {
        let sql = try #require(ledger as? any SQLLedger)
        return try await sql.transaction(.read, "reading a coverage row") { session in
            let rows = try await session.rows(
                """
                SELECT requests, bytes_sent, first_served_at, last_served_at FROM served_coverage
                WHERE transaction_id = \(transactionId) AND digest = \(digest)
                """)
            return try rows.first.map { row in try (0..<4).map { Int(try row.integer($0)) } } ?? []
        }
    }

    /// `coalesced` (what the served-bytes writer does to a take before writing it): the same coverage, requests,
    /// bytes and times as the ranges one by one, in fewer rows.
    @Test func aBatchCoalescesEachBundlesRangesAndKeepsTheTotals() {
        let (a, b) = (Sample.level1.digest, Sample.level2.digest)
        func served(
            _ id: String, _ digest: BundleDigest, _ range: Range<Int64>, at: Int64 = 10, client: String = "192.0.2.1"
        )
            -> ServedRange
        {
            ServedRange(transactionId: id, digest: digest, range: range, client: client, at: at)
        }
        var batch = (0..<300).map { served("hot", a, 0..<100, at: 10 + Int64($0 % 7)) }
        batch += [served("t", b, 0..<10), served("t", b, 20..<30), served("t", b, 10..<20), served("t", b, 50..<60, client: "192.0.2.7")]
        batch += [served("empty", a, 5..<5), served("empty", a, 7..<7)]
        let coalesced = ServedRange.coalesced(batch)
        #expect(coalesced.map(\.transactionId) == ["hot", "t", "t", "empty"])
        #expect(coalesced.map(\.range) == [0..<100, 0..<30, 50..<60, 0..<0])
        #expect(coalesced.map(\.requests) == [300, 4, 0, 2])
        #expect(coalesced.map(\.bytesSent) == [30_000, 40, 0, 0])
        // The earliest and latest times and the last client of each bundle.
        #expect(coalesced[0].at == 16 && coalesced[0].firstAt == 10)
        #expect(coalesced[1].client == "192.0.2.7" && coalesced[2].client == "192.0.2.7")
        // Ranges of different bundles or transactions are left as they are.
        let distinct = [served("x", a, 0..<5), served("x", b, 0..<5), served("y", a, 0..<5)]
        #expect(ServedRange.coalesced(distinct) == distinct)
    }

    @Test(arguments: Engine.tested)
    func unfinishedListsStaleDeliveriesOfPendingTransactions(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            // Stale: redeemed at 50, granted at 100, nothing since.
            _ = try await ledger.recordTransaction(Sample.transaction("stale"), now: 50)
            try await ledger.recordGrants(transactionId: "stale", deliveries: [Sample.level2, Sample.level1], now: 100)
            // Bytes served recently.
            _ = try await ledger.recordTransaction(Sample.transaction("served"), now: 50)
            try await ledger.recordGrants(transactionId: "served", deliveries: [Sample.level1], now: 100)
            try await ledger.recordServed(
                transactionId: "served", digest: Sample.level1.digest, range: 0..<10, client: "192.0.2.1", now: 500)
            // Redeemed again recently.
            _ = try await ledger.recordTransaction(Sample.transaction("again"), now: 50)
            try await ledger.recordGrants(transactionId: "again", deliveries: [Sample.level3], now: 100)
            _ = try await ledger.recordTransaction(Sample.transaction("again"), now: 600)
            // Granted recently.
            _ = try await ledger.recordTransaction(Sample.transaction("granted"), now: 50)
            try await ledger.recordGrants(transactionId: "granted", deliveries: [Sample.level1], now: 700)
            // Finished long ago.
            _ = try await ledger.recordTransaction(Sample.transaction("done"), now: 50)
            try await ledger.recordGrants(transactionId: "done", deliveries: [Sample.level1], now: 100)
            #expect(
                try await ledger.finish(
                    transactionId: "done", claims: [Sample.confirmed(Sample.level1)], requiresDelivery: false,
                    now: 110)
                    == .finished(firstTime: true))
            // Pending, never granted: no delivery to list.
            _ = try await ledger.recordTransaction(Sample.transaction("bare"), now: 50)

            let old = try await ledger.unfinished(before: 300)
            #expect(old.map(\.transactionId) == ["stale", "stale"])
            #expect(old.map(\.delivery) == [Sample.level1, Sample.level2])
            #expect(old.allSatisfy { $0.confirmedAt == nil && $0.lastActivityAt == 100 && $0.grantsIssued == 1 })

            #expect(try await ledger.unfinished(before: 100).isEmpty)
            #expect(try await ledger.unfinished(before: 550).map(\.transactionId) == ["served", "stale", "stale"])
            let all = try await ledger.unfinished(before: 10_000)
            #expect(all.map(\.transactionId) == ["again", "granted", "served", "stale", "stale"])
            #expect(all.first { $0.transactionId == "served" }?.lastActivityAt == 500)
            #expect(all.first { $0.transactionId == "served" }?.bytesCovered == 10)
        }
    }
}
