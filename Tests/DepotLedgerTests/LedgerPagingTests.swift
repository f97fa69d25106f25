import DepotCore
import Testing

@testable import DepotLedger

/// Operator lists come in pages on every engine: walking the pages gives the whole list once, in order.
@Suite struct LedgerPagingTests {
    @Test(arguments: Engine.tested)
    func unfinishedDeliveriesPageByKey(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            // Ids whose byte order differs from a locale's order ("B" < "a" in bytes).
            for id in ["a-1", "B-2", "a-10", "a-2", "Z"] {
                _ = try await ledger.recordTransaction(Sample.transaction(id), now: 1)
                try await ledger.recordGrants(transactionId: id, deliveries: [Sample.level1, Sample.level2], now: 2)
            }
            let whole = try await ledger.unfinished(before: 100)
            #expect(whole.count == 10)
            let keys = whole.map {
                DeliveryKey(transactionId: $0.transactionId, contentId: $0.delivery.contentId, version: $0.delivery.version)
            }
            #expect(keys.map(\.transactionId) == ["B-2", "B-2", "Z", "Z", "a-1", "a-1", "a-10", "a-10", "a-2", "a-2"])

            for limit in [1, 3, 4, 10, 11] {
                var walked: [DeliveryStatus] = []
                var after: DeliveryKey?
                while true {
                    let page = try await ledger.unfinished(before: 100, after: after, limit: limit)
                    #expect(page.count <= limit)
                    walked += page
                    guard page.count == limit, let last = page.last else { break }
                    after = DeliveryKey(
                        transactionId: last.transactionId, contentId: last.delivery.contentId, version: last.delivery.version)
                }
                #expect(walked == whole, "limit \(limit)")
            }
        }
    }

    @Test(arguments: Engine.tested)
    func auditTrailsPageBySequence(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.recordTransaction(Sample.transaction("9000"), now: 1)
            _ = try await ledger.recordTransaction(Sample.transaction("9001"), now: 1)
            for step in 0..<7 {
                try await ledger.recordGrants(transactionId: "9000", deliveries: [Sample.level1], now: 10 + Int64(step))
                try await ledger.recordGrants(transactionId: "9001", deliveries: [Sample.level1], now: 10 + Int64(step))
            }
            let whole = try await ledger.auditTrail(transactionId: "9000")
            #expect(whole.count == 8)
            #expect(Set(whole.map(\.sequence)).count == 8)
            var walked: [AuditEvent] = []
            var after: Int64 = 0
            while true {
                let page = try await ledger.auditTrail(transactionId: "9000", afterSequence: after, limit: 3)
                walked += page
                guard page.count == 3, let last = page.last else { break }
                after = last.sequence
            }
            #expect(walked == whole)
            #expect(walked.allSatisfy { $0.transactionId == "9000" })
        }
    }

    @Test(arguments: Engine.tested)
    func irregularTransactionsPageByOffset(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            for (index, id) in ["t1", "t2", "t3", "t4", "t5"].enumerated() {
                for client in 0...(index + 2) {
                    try await ledger.attempt(id, token: nil, client: "192.0.2.\(client)", now: 10)
                }
            }
            let whole = try await ledger.irregularTransactions(since: 0, maxAccountTokens: 5, maxClientAddresses: 2)
            #expect(whole.map(\.transactionId) == ["t5", "t4", "t3", "t2", "t1"])
            let first = try await ledger.irregularTransactions(
                since: 0, maxAccountTokens: 5, maxClientAddresses: 2, offset: 0, limit: 2)
            let second = try await ledger.irregularTransactions(
                since: 0, maxAccountTokens: 5, maxClientAddresses: 2, offset: 2, limit: 2)
            let third = try await ledger.irregularTransactions(
                since: 0, maxAccountTokens: 5, maxClientAddresses: 2, offset: 4, limit: 2)
            #expect(first + second + third == whole)
            #expect(third.count == 1)
        }
    }
}
