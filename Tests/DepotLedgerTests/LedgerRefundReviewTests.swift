import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: Google Play refund reviews on every engine. A review records its token and enqueues the
/// transaction's answer in one ledger transaction; the same token again changes nothing; a new review of an
/// answered transaction makes its answer pending again, with the new token, and so does one arriving while the
/// answer is leased to a sender; an unknown transaction gets nothing.
@Suite struct LedgerRefundReviewTests {
    @Test(arguments: Engine.allCases)
    func aReviewEnqueuesOneAnswerAndANewReviewAnother(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, ledger in
            #expect(try await fixture.appliedMigrations(ledger).contains { $0.hasSuffix("refund-reviews") })
            try await LedgerAppleOutboxTests.redeemed(ledger, "GPA.1")
            #expect(try await ledger.pendingRefundToken(transactionId: "GPA.1") == nil)
            #expect(try await !ledger.recordRefundReview(transactionId: "nope", pendingRefundToken: "t0", now: 40))
            #expect(try await ledger.pendingRefundToken(transactionId: "nope") == nil)

            #expect(try await ledger.recordRefundReview(transactionId: "GPA.1", pendingRefundToken: "t1", now: 40))
            #expect(try await ledger.pendingRefundToken(transactionId: "GPA.1") == "t1")
            var jobs = try await ledger.appleJobs(transactionId: "GPA.1")
            #expect(jobs.map(\.kind) == [.consumption] && jobs.first?.state == .pending && jobs.first?.createdAt == 40)
            #expect(try await ledger.events("GPA.1").contains("google-play-refund-review"))
            // Delivered again by Pub/Sub: nothing changes.
            #expect(try await !ledger.recordRefundReview(transactionId: "GPA.1", pendingRefundToken: "t1", now: 41))
            #expect(try await ledger.appleJobs(transactionId: "GPA.1").count == 1)

            // Answered; a later review of the same order is a new question.
            let claimed = try await ledger.claimAppleJobs(owner: "a", now: 50, leaseSeconds: 60, limit: 10)
            let job = try #require(claimed.first)
            #expect(try await ledger.completeAppleJob(id: job.id, owner: "a", now: 51))
            #expect(try await ledger.recordRefundReview(transactionId: "GPA.1", pendingRefundToken: "t2", now: 60))
            #expect(try await ledger.pendingRefundToken(transactionId: "GPA.1") == "t2")
            jobs = try await ledger.appleJobs(transactionId: "GPA.1")
            #expect(jobs.count == 1 && jobs.first?.state == .pending && jobs.first?.attempts == 0 && jobs.first?.createdAt == 60)

            // A review that arrives while the answer to the one before is being sent takes its place: the sender's
            // completion changes nothing, and the job is claimed again for the new token.
            let leased = try #require(try await ledger.claimAppleJobs(owner: "b", now: 70, leaseSeconds: 60, limit: 10).first)
            #expect(try await ledger.recordRefundReview(transactionId: "GPA.1", pendingRefundToken: "t3", now: 71))
            #expect(try await !ledger.completeAppleJob(id: leased.id, owner: "b", now: 72))
            let again = try await ledger.claimAppleJobs(owner: "c", now: 73, leaseSeconds: 60, limit: 10)
            #expect(again.map(\.id) == [leased.id] && again.first?.attempts == 1 && again.first?.createdAt == 71)
            #expect(try await ledger.pendingRefundToken(transactionId: "GPA.1") == "t3")
        }
    }
}
