import DepotCore
import DepotLedger
import DepotOrigin
import DepotTelemetry
import DepotTestSupport
import Foundation
import Logging
import Testing

/// `ServedBytesRecorder` against a real SQLite ledger: what queued while the writer was away is written in a few
/// commits, not one per answer, and a full queue drops and counts what arrives instead of growing.
@Suite("Served-bytes recorder")
struct ServedBytesRecorderTests {
    static let digest = BundleDigest(hex: String(repeating: "d", count: 64))!

    /// A ledger file of its own, with `transactions` redeemed and granted the one bundle.
    static func withLedger(transactions: Int, _ body: (SQLiteLedger, MeasuredLedger, DepotMetrics) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = try await SQLiteLedger.open(path: directory.appendingPathComponent("ledger.sqlite").path)
        defer { try? ledger.close() }
        for index in 0..<transactions {
            let id = "t\(index)"
            _ = try await ledger.recordTransaction(
                PurchaseTransaction(
                    id: id, originalId: id, productId: "com.example.level1", purchaseDate: 1_700_000_000_000, expiresDate: nil,
                    revocationDate: nil, appAccountToken: nil),
                productType: nil, now: 1)
            try await ledger.recordGrants(
                transactionId: id, deliveries: [PlannedDelivery(contentId: "level1", version: "1.0", digest: digest)], now: 2)
        }
        let metrics = DepotMetrics()
        try await body(ledger, MeasuredLedger(base: ledger, metrics: metrics), metrics)
    }

    /// One answer of 100 bytes at 200 × `index` (so that no two answers' ranges touch), for transaction `t<transaction>`.
    static func answer(_ transaction: Int, _ index: Int) -> ServedBytes {
        let start = Int64(index) * 200
        return ServedBytes(transactionId: "t\(transaction)", digest: digest, ranges: [start..<start + 100], client: "192.0.2.9", at: 50)
    }

    /// How many `recordServed` calls the measured ledger has counted.
    static func recordServedCalls(_ metrics: DepotMetrics) throws -> Double {
        let scrape = try PrometheusText(String(decoding: metrics.render(), as: UTF8.self))
        return scrape.value("depot_ledger_operation_duration_seconds_count", ["operation": "recordServed"]) ?? 0
    }

    static func covered(_ ledger: SQLiteLedger, _ transaction: Int) async throws -> Int64? {
        try await ledger.deliveries(transactionId: "t\(transaction)").first?.bytesCovered
    }

    @Test func answersQueuedWhileTheWriterWasAwayAreWrittenAFewHundredToACommit() async throws {
        try await Self.withLedger(transactions: 3) { ledger, measured, metrics in
            let recorder = ServedBytesRecorder(ledger: measured, logger: Logger(label: "test"), metrics: metrics)
            // 600 answers, 200 apart ranges of each transaction's bundle, before the writer runs.
            for index in 0..<200 {
                for transaction in 0..<3 { recorder.record(Self.answer(transaction, index)) }
            }
            #expect(recorder.waitingCount == 600)
            let writer = Task { try await recorder.run() }
            defer { writer.cancel() }
            try await eventually("the 600 answers recorded") {
                try await Self.covered(ledger, 2) == 20_000 && recorder.waitingCount == 0
            }
            for transaction in 0..<3 { #expect(try await Self.covered(ledger, transaction) == 20_000) }
            // 600 ranges, at most 256 to a commit: three ledger calls (each counted just after its commit).
            try await eventually("the third ledger call counted") { try Self.recordServedCalls(metrics) >= 3 }
            #expect(try Self.recordServedCalls(metrics) == 3)
            let scrape = try PrometheusText(String(decoding: metrics.render(), as: UTF8.self))
            #expect(scrape.value("depot_served_backlog") == 600)
            #expect(scrape.value("depot_bundle_responses_total", ["via": "grant"]) == 600)
        }
    }

    @Test func answersRepeatingTheSameBytesAreOneRangeToWrite() async throws {
        try await Self.withLedger(transactions: 2) { ledger, measured, metrics in
            let recorder = ServedBytesRecorder(ledger: measured, logger: Logger(label: "test"), metrics: metrics)
            // A client asking for the same 100 bytes a thousand times, beside another buyer's one answer.
            for _ in 0..<1_000 { recorder.record(Self.answer(0, 0)) }
            recorder.record(Self.answer(1, 3))
            let writer = Task { try await recorder.run() }
            defer { writer.cancel() }
            try await eventually("both transactions' answers recorded") {
                let (hot, other) = (try await Self.covered(ledger, 0), try await Self.covered(ledger, 1))
                return hot == 100 && other == 100
            }
            try await eventually("the ledger call counted") { try Self.recordServedCalls(metrics) >= 1 }
            #expect(try Self.recordServedCalls(metrics) == 1)
            let scrape = try PrometheusText(String(decoding: metrics.render(), as: UTF8.self))
            #expect(scrape.value("depot_bundle_responses_total", ["via": "grant"]) == 1_001)
        }
    }

    @Test func aFullQueueDropsAndCountsWhatArrivesAndKeepsWhatItHolds() async throws {
        try await Self.withLedger(transactions: 1) { ledger, measured, metrics in
            let recorder = ServedBytesRecorder(ledger: measured, logger: Logger(label: "test"), metrics: metrics, capacity: 10)
            for index in 0..<15 { recorder.record(Self.answer(0, index)) }
            #expect(recorder.waitingCount == 10)
            let scrape = try PrometheusText(String(decoding: metrics.render(), as: UTF8.self))
            #expect(scrape.value("depot_served_events_dropped_total") == 5)
            let writer = Task { try await recorder.run() }
            defer { writer.cancel() }
            // The first ten answers were kept; the five that found the queue full were not.
            try await eventually("the ten kept answers recorded") { try await Self.covered(ledger, 0) == 1_000 }
            #expect(recorder.waitingCount == 0)
            // With room again, answers are queued and written.
            recorder.record(Self.answer(0, 10))
            try await eventually("a later answer recorded") { try await Self.covered(ledger, 0) == 1_100 }
        }
    }

    @Test func oneTransactionsFloodLeavesOtherTransactionsEvidenceRecorded() async throws {
        try await Self.withLedger(transactions: 2) { ledger, measured, metrics in
            let recorder = ServedBytesRecorder(
                ledger: measured, logger: Logger(label: "test"), metrics: metrics, capacity: 1_000, transactionShare: 64)
            // t0 floods: 2,000 answers of 16 one-byte ranges, none touching another, before the writer runs.
            for index in 0..<2_000 {
                let ranges = (0..<16).map { part -> Range<Int64> in
                    let start = Int64(index * 16 + part) * 2
                    return start..<start + 1
                }
                recorder.record(ServedBytes(transactionId: "t0", digest: Self.digest, ranges: ranges, client: "192.0.2.6", at: 50))
            }
            // t1 downloads its bundle in ten parts meanwhile.
            for part in 0..<10 {
                recorder.record(
                    ServedBytes(
                        transactionId: "t1", digest: Self.digest, ranges: [Int64(part) * 100..<Int64(part + 1) * 100], client: "192.0.2.9",
                        at: 50))
            }
            // t0 queued its share (64 ranges, 4 answers) and merged 1,024 intervals past it; the rest is left out for
            // t0 alone, and nothing was dropped from the queue.
            #expect(recorder.waitingCount == 4 + 10)
            var scrape = try PrometheusText(String(decoding: metrics.render(), as: UTF8.self))
            #expect(scrape.value("depot_served_events_dropped_total") == 0)
            #expect(scrape.value("depot_served_ranges_unrecorded_total", ["reason": "share"]) == Double(32_000 - 64 - 1_024))
            let writer = Task { try await recorder.run() }
            defer { writer.cancel() }
            try await eventually("both transactions' evidence recorded") {
                let (flood, other) = (try await Self.covered(ledger, 0), try await Self.covered(ledger, 1))
                return other == 1_000 && flood == Int64(ServedRange.storedIntervalLimit)
            }
            // t0's 1,088 intervals: the ledger keeps 1,024 of them and says so.
            try await eventually("the ranges past the bound counted") {
                scrape = try PrometheusText(String(decoding: metrics.render(), as: UTF8.self))
                return scrape.value("depot_served_ranges_unrecorded_total", ["reason": "bound"]) == 64
            }
            #expect(try await ledger.deliveries(transactionId: "t0").first?.bytesCovered == 1_024)
        }
    }
}
