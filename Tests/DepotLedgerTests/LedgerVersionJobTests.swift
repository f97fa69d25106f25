import DepotCore
import Testing

@testable import DepotLedger

/// Version jobs on every engine: one live job per product × content × version, final states stay final,
/// and a job whose worker stopped reporting is failed rather than left "in progress".
@Suite struct LedgerVersionJobTests {
    static func job(_ id: String, version: String = "1.1", contentId: String? = nil, at time: Int64) -> VersionJob {
        VersionJob(
            id: id, productId: "level1", version: version, contentId: contentId, uploadId: String(repeating: "a", count: 32),
            publisher: "studio", sha256: String(repeating: "0", count: 64), publishedAt: nil, state: .received,
            createdAt: time, updatedAt: time)
    }

    @Test(arguments: Engine.tested)
    func oneLiveJobPerVersionAndFinalStatesStay(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { (_, ledger) async throws in
            #expect(try await ledger.createVersionJob(Self.job("j1", at: 100), staleBefore: 40) == .created)
            // Another job for the same version is refused while the first is live…
            let second = try await ledger.createVersionJob(Self.job("j2", at: 101), staleBefore: 41)
            #expect(second == .inProgress(Self.job("j1", at: 100)))
            // …but another content id or version is its own key.
            #expect(try await ledger.createVersionJob(Self.job("j3", contentId: "level1-hd", at: 101), staleBefore: 41) == .created)
            #expect(try await ledger.createVersionJob(Self.job("j4", version: "1.2", at: 101), staleBefore: 41) == .created)

            #expect(try await ledger.updateVersionJob(id: "j1", state: .validating, failureReason: nil, now: 110))
            #expect(try await ledger.updateVersionJob(id: "j1", state: .bundling, failureReason: nil, now: 120))
            #expect(try await ledger.updateVersionJob(id: "j1", state: .failed, failureReason: "bad archive", now: 130))
            // Final is final.
            #expect(try await ledger.updateVersionJob(id: "j1", state: .staged, failureReason: nil, now: 140) == false)
            #expect(try await ledger.updateVersionJob(id: "missing", state: .staged, failureReason: nil, now: 140) == false)
            let failed = try #require(try await ledger.versionJob(id: "j1"))
            #expect(failed.state == .failed)
            #expect(failed.failureReason == "bad archive")
            #expect(failed.updatedAt == 130)

            // A failed job does not block a new one, which replaces it.
            #expect(try await ledger.createVersionJob(Self.job("j5", at: 150), staleBefore: 90) == .created)
            #expect(try await ledger.versionJob(id: "j1") == nil)
            let ids = try await ledger.versionJobs(productId: "level1").map(\.id)
            #expect(ids.sorted() == ["j3", "j4", "j5"])
            #expect(ids.first == "j5")
            #expect(try await ledger.versionJobs(productId: "other").isEmpty)
        }
    }

    @Test(arguments: Engine.tested)
    func aJobThatStoppedReportingIsFailedAndReplaceable(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { (_, ledger) async throws in
            #expect(try await ledger.createVersionJob(Self.job("old", at: 100), staleBefore: 0) == .created)
            #expect(try await ledger.createVersionJob(Self.job("fresh", version: "2", at: 100), staleBefore: 0) == .created)
            #expect(try await ledger.updateVersionJob(id: "old", state: .bundling, failureReason: nil, now: 105))
            #expect(try await ledger.updateVersionJob(id: "fresh", state: .bundling, failureReason: nil, now: 200))
            // A stale job does not count as live: a new one may take its place.
            #expect(try await ledger.createVersionJob(Self.job("retry", at: 210), staleBefore: 150) == .created)
            #expect(try await ledger.versionJob(id: "old") == nil)
            #expect(try await ledger.updateVersionJob(id: "retry", state: .validating, failureReason: nil, now: 120))

            #expect(try await ledger.failStaleVersionJobs(before: 150, reason: "interrupted", now: 300) == 1)
            #expect(try await ledger.versionJob(id: "retry")?.state == .failed)
            #expect(try await ledger.versionJob(id: "retry")?.failureReason == "interrupted")
            #expect(try await ledger.versionJob(id: "fresh")?.state == .bundling)
            #expect(try await ledger.failStaleVersionJobs(before: 150, reason: "interrupted", now: 300) == 0)
        }
    }
}
