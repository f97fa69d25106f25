import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: the outbox's depth by state on every engine, as `/metrics` shows it.
@Suite struct LedgerOutboxDepthTests {
    @Test(arguments: Engine.tested)
    func countsFollowJobsThroughTheirStates(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            #expect(try await ledger.storeJobCounts().isEmpty)
            for id in ["3001", "3002", "3003"] {
                try await LedgerAppleOutboxTests.redeemed(ledger, id)
                _ = try await LedgerAppleOutboxTests.finish(ledger, id, enqueue: true)
            }
            #expect(try await ledger.storeJobCounts() == [.pending: 3])
            let claimed = try await ledger.claimStoreJobs(owner: "a", now: 40, leaseSeconds: 10, limit: 2)
            #expect(claimed.count == 2)
            #expect(try await ledger.completeStoreJob(id: claimed[0].id, owner: "a", now: 41))
            #expect(try await ledger.failStoreJob(id: claimed[1].id, owner: "a", error: "refused", now: 41))
            #expect(try await ledger.storeJobCounts() == [.pending: 1, .done: 1, .failed: 1])
        }
    }
}
