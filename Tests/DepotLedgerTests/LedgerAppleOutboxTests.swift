import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: the App Store outbox on every engine. A job commits with the finish that causes it, once per
/// transaction; claims take a lease; only the lease holder settles a job; an ended lease frees the job again;
/// claimers on one database never hold the same job.
@Suite struct LedgerAppleOutboxTests {
    /// A redeemed transaction with one offer, ready to finish.
    static func redeemed(_ ledger: any Ledger, _ id: String, environment: String = "Sandbox") async throws {
        var transaction = Sample.transaction(id)
        transaction.environment = environment
        _ = try await ledger.recordTransaction(transaction, now: 10)
        try await ledger.recordGrants(transactionId: id, deliveries: [Sample.level1], now: 20)
    }

    static func finish(
        _ ledger: any Ledger, _ id: String, enqueue: Bool, claims: [ConfirmedDelivery] = [Sample.confirmed(Sample.level1)]
    )
        async throws -> FinishOutcome
    {
        try await ledger.finish(transactionId: id, claims: claims, requiresDelivery: true, enqueueAppleFinish: enqueue, now: 30)
    }

    @Test(arguments: Engine.tested)
    func theFinishEnqueuesOneJobOnlyWhenAskedAndOnlyWhenItFinishes(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, ledger in
            #expect(try await fixture.appliedMigrations(ledger).contains { $0.hasSuffix("apple-outbox") })
            try await Self.redeemed(ledger, "1001")
            try await Self.redeemed(ledger, "1002", environment: "Production")
            // A refused finish enqueues nothing.
            #expect(try await Self.finish(ledger, "1001", enqueue: true, claims: []) == .mismatch(missing: ["level1"], wrongDigest: []))
            #expect(try await ledger.storeJobs(transactionId: "1001").isEmpty)
            #expect(try await Self.finish(ledger, "1001", enqueue: true) == .finished(firstTime: true))
            // Repeating the finish enqueues nothing more.
            #expect(try await Self.finish(ledger, "1001", enqueue: true) == .finished(firstTime: false))
            let jobs = try await ledger.storeJobs(transactionId: "1001")
            #expect(jobs.count == 1)
            let job = try #require(jobs.first)
            #expect(job.kind == .finish && job.state == .pending && job.environment == "Sandbox")
            #expect(job.attempts == 0 && job.nextAttemptAt == 30 && job.createdAt == 30 && job.leaseOwner == nil)
            #expect(try await ledger.events("1001").contains("apple-finish-enqueued"))
            // Without the flag (the API not configured) the finish records no job.
            #expect(try await Self.finish(ledger, "1002", enqueue: false) == .finished(firstTime: true))
            #expect(try await ledger.storeJobs(transactionId: "1002").isEmpty)
            #expect(try await ledger.unsettledStoreJobs().map(\.transactionId) == ["1001"])
            // Finished while the API was off, confirmed again once it is on: enqueued then, once.
            #expect(try await ledger.enqueueAppleFinish(transactionId: "1002", now: 50))
            #expect(try await !ledger.enqueueAppleFinish(transactionId: "1002", now: 51))
            #expect(try await ledger.storeJobs(transactionId: "1002").map(\.createdAt) == [50])
            #expect(try await !ledger.enqueueAppleFinish(transactionId: "1001", now: 52))
            // A transaction not finished, or unknown, gets nothing.
            try await Self.redeemed(ledger, "1003")
            #expect(try await !ledger.enqueueAppleFinish(transactionId: "1003", now: 53))
            #expect(try await !ledger.enqueueAppleFinish(transactionId: "nope", now: 53))
            #expect(try await ledger.storeJobs(transactionId: "1003").isEmpty)
        }
    }

    @Test(arguments: Engine.tested)
    func leasesGuardEverySettlementAndAnEndedLeaseFreesTheJob(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            try await Self.redeemed(ledger, "2001")
            _ = try await Self.finish(ledger, "2001", enqueue: true)
            // Not due yet before its time.
            #expect(try await ledger.claimStoreJobs(owner: "a", now: 29, leaseSeconds: 10, limit: 5).isEmpty)
            let claimed = try await ledger.claimStoreJobs(owner: "a", now: 40, leaseSeconds: 10, limit: 5)
            #expect(claimed.map(\.transactionId) == ["2001"])
            #expect(claimed.first?.attempts == 1 && claimed.first?.leaseOwner == "a" && claimed.first?.leaseExpiresAt == 50)
            let id = try #require(claimed.first?.id)
            // While the lease runs, nobody else claims it.
            #expect(try await ledger.claimStoreJobs(owner: "b", now: 49, leaseSeconds: 10, limit: 5).isEmpty)
            // Sender "a" died; at the lease's end "b" claims it (a second attempt).
            let reclaimed = try await ledger.claimStoreJobs(owner: "b", now: 50, leaseSeconds: 10, limit: 5)
            #expect(reclaimed.map(\.id) == [id] && reclaimed.first?.attempts == 2)
            // "a" coming back changes nothing: it no longer holds the job.
            #expect(try await !ledger.completeStoreJob(id: id, owner: "a", now: 51))
            #expect(try await !ledger.retryStoreJob(id: id, owner: "a", nextAttemptAt: 99, error: "late", now: 51))
            #expect(try await !ledger.failStoreJob(id: id, owner: "a", error: "late", now: 51))
            // "b" retries later: released with the reason, due again at 70.
            #expect(try await ledger.retryStoreJob(id: id, owner: "b", nextAttemptAt: 70, error: "App Store answered 500", now: 52))
            let waiting = try #require(try await ledger.storeJobs(transactionId: "2001").first)
            #expect(waiting.state == .pending && waiting.leaseOwner == nil && waiting.nextAttemptAt == 70)
            #expect(waiting.lastError == "App Store answered 500")
            #expect(try await ledger.claimStoreJobs(owner: "c", now: 69, leaseSeconds: 10, limit: 5).isEmpty)
            #expect(try await ledger.claimStoreJobs(owner: "c", now: 70, leaseSeconds: 10, limit: 5).map(\.attempts) == [3])
            #expect(try await ledger.completeStoreJob(id: id, owner: "c", now: 71))
            let done = try #require(try await ledger.storeJobs(transactionId: "2001").first)
            #expect(done.state == .done && done.lastError == nil && done.leaseOwner == nil && done.updatedAt == 71)
            #expect(try await ledger.unsettledStoreJobs().isEmpty)
            #expect(try await ledger.claimStoreJobs(owner: "c", now: 1000, leaseSeconds: 10, limit: 5).isEmpty)
            #expect(try await ledger.events("2001").contains("apple-finish-sent"))
            // Settling a done job again changes nothing.
            #expect(try await !ledger.completeStoreJob(id: id, owner: "c", now: 72))
        }
    }

    @Test(arguments: Engine.tested)
    func failedJobsStayListedForOperatorsAndAreNeverClaimed(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            for id in ["3001", "3002", "3003"] {
                try await Self.redeemed(ledger, id)
                _ = try await Self.finish(ledger, id, enqueue: true)
            }
            let claimed = try await ledger.claimStoreJobs(owner: "a", now: 30, leaseSeconds: 60, limit: 2)
            #expect(claimed.map(\.transactionId) == ["3001", "3002"])
            #expect(try await ledger.failStoreJob(id: claimed[0].id, owner: "a", error: "answered 404 errorCode 4040010", now: 31))
            #expect(try await ledger.completeStoreJob(id: claimed[1].id, owner: "a", now: 31))
            let unsettled = try await ledger.unsettledStoreJobs()
            #expect(unsettled.map(\.transactionId) == ["3001", "3003"])
            #expect(unsettled.map(\.state) == [.failed, .pending])
            #expect(unsettled.first?.lastError == "answered 404 errorCode 4040010")
            #expect(try await ledger.storeJobs(states: [.failed], afterId: 0, limit: 10).map(\.transactionId) == ["3001"])
            #expect(
                try await ledger.storeJobs(states: [.pending, .failed], afterId: unsettled[0].id, limit: 10).map(\.transactionId) == [
                    "3003"
                ])
            #expect(try await ledger.storeJobs(states: [.pending, .failed], afterId: 0, limit: 1).count == 1)
            #expect(try await ledger.claimStoreJobs(owner: "b", now: 10_000, leaseSeconds: 60, limit: 10).map(\.transactionId) == ["3003"])
            #expect(try await ledger.events("3001").contains("apple-finish-failed"))
        }
    }

    /// Several ledger instances (as several Depot instances) claiming together: every job is claimed by exactly
    /// one of them.
    @Test(arguments: Engine.tested)
    func concurrentClaimersNeverShareAJob(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, first in
            let ids = (0..<40).map { String(4000 + $0) }
            for id in ids {
                try await Self.redeemed(first, id)
                _ = try await Self.finish(first, id, enqueue: true)
            }
            var ledgers: [any Ledger] = [first]
            for _ in 0..<3 { ledgers.append(try await fixture.open()) }
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for (index, ledger) in ledgers.enumerated() {
                    group.addTask {
                        var mine: [String] = []
                        while true {
                            let jobs = try await ledger.claimStoreJobs(owner: "instance-\(index)", now: 100, leaseSeconds: 600, limit: 3)
                            if jobs.isEmpty { return mine }
                            mine += jobs.map(\.transactionId)
                        }
                    }
                }
                var all: [String] = []
                for try await mine in group { all += mine }
                return all
            }
            #expect(claims.count == ids.count)
            #expect(Set(claims) == Set(ids))
        }
    }
}

/// Conformance: consent and the consumption jobs a CONSUMPTION_REQUEST enqueues with its record.
@Suite struct LedgerConsumptionOutboxTests {
    static func request(_ uuid: String, _ transactionId: String) -> NotificationRecord {
        NotificationRecord(uuid: uuid, type: "CONSUMPTION_REQUEST", subtype: nil, transactionId: transactionId)
    }

    @Test(arguments: Engine.tested)
    func consumptionJobsNeedConsentAndComeOncePerRequest(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            try await LedgerAppleOutboxTests.redeemed(ledger, "5001")
            #expect(try await !ledger.setConsumptionConsent(transactionId: "unknown", consented: true, now: 10))
            // No consent: recorded, nothing queued, the reason audited.
            #expect(try await ledger.recordNotification(Self.request("n1", "5001"), enqueueConsumption: true, now: 20))
            #expect(try await ledger.storeJobs(transactionId: "5001").isEmpty)
            #expect(try await ledger.events("5001").contains("apple-consumption-not-sent"))
            // Consent, then a request: one job; Apple's retry of the same request adds nothing.
            #expect(try await ledger.setConsumptionConsent(transactionId: "5001", consented: true, now: 30))
            #expect(try await ledger.setConsumptionConsent(transactionId: "5001", consented: true, now: 31))
            #expect(try await ledger.consumptionConsentedAt(transactionId: "5001") == 30)
            #expect(try await ledger.recordNotification(Self.request("n2", "5001"), enqueueConsumption: true, now: 40))
            #expect(try await !ledger.recordNotification(Self.request("n2", "5001"), enqueueConsumption: true, now: 41))
            let jobs = try await ledger.storeJobs(transactionId: "5001")
            #expect(jobs.map(\.kind) == [.consumption] && jobs.first?.createdAt == 40)
            // Without the flag (the API not configured) nothing is queued.
            #expect(try await ledger.recordNotification(Self.request("n3", "5001"), enqueueConsumption: false, now: 45))
            #expect(try await ledger.storeJobs(transactionId: "5001").count == 1)
            // Settled, a new request makes it pending again, from scratch.
            let claimed = try await ledger.claimStoreJobs(owner: "a", now: 50, leaseSeconds: 10, limit: 1)
            #expect(try await ledger.completeStoreJob(id: try #require(claimed.first?.id), owner: "a", now: 51))
            #expect(try await ledger.recordNotification(Self.request("n4", "5001"), enqueueConsumption: true, now: 60))
            let again = try #require(try await ledger.storeJobs(transactionId: "5001").first)
            #expect(again.state == .pending && again.attempts == 0 && again.createdAt == 60 && again.id == claimed.first?.id)
            // Withdrawn consent: later requests are not queued.
            #expect(try await ledger.setConsumptionConsent(transactionId: "5001", consented: false, now: 70))
            #expect(try await ledger.consumptionConsentedAt(transactionId: "5001") == nil)
            #expect(try await ledger.events("5001").filter { $0 == "consumption-consent" }.count == 2)
        }
    }
}
