import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: a publisher's quota of live uploads, on both engines. Only unexpired uploads that no staged version
/// job consumed count, finished or not; a deferred length counts as the quota says; creations at once cannot pass
/// the quota together.
@Suite struct LedgerUploadQuotaTests {
    static let quota = UploadQuota(maxCount: 3, maxBytes: 1000, deferredBytes: 400)

    static func record(
        _ id: String, publisher: String = "studio", length: Int64? = 100, expiresAt: Int64 = 1000
    )
        -> UploadRecord
    {
        UploadRecord(
            id: id, publisher: publisher, length: length, offset: 0, metadata: "", createdAt: 10, expiresAt: expiresAt)
    }

    /// Creates `record` within `quota` at `now` and expects `outcome`.
    static func expect(
        _ ledger: any Ledger, _ record: UploadRecord, within quota: UploadQuota, now: Int64, _ outcome: UploadQuotaOutcome,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let got = try await ledger.createUpload(record, within: quota, now: now)
        #expect(got == outcome, "\(record.id)", sourceLocation: sourceLocation)
    }

    @Test(arguments: Engine.tested)
    func theCountAndTheBytesOfLiveUploadsAreBounded(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let quota = Self.quota
            try await Self.expect(ledger, Self.record("q1"), within: quota, now: 20, .created)
            try await Self.expect(ledger, Self.record("q2", length: nil), within: quota, now: 20, .created)
            // 100 + 400 (deferred) + 600 > 1000: nothing is recorded.
            try await Self.expect(ledger, Self.record("q3", length: 600), within: quota, now: 20, .overBytes)
            #expect(try await ledger.upload(id: "q3") == nil)
            try await Self.expect(ledger, Self.record("q3", length: 500), within: quota, now: 20, .created)
            try await Self.expect(ledger, Self.record("q4", length: 0), within: quota, now: 20, .overCount)
            #expect(try await ledger.upload(id: "q4") == nil)
            // Another publisher has its own quota.
            try await Self.expect(ledger, Self.record("o1", publisher: "other"), within: quota, now: 20, .created)

            // A finished upload still holds its bytes: it counts until a version job staged a version from it.
            #expect(try await ledger.advanceUpload(id: "q1", from: 0, to: 100, length: nil, expiresAt: 1000, now: 21))
            try await Self.expect(ledger, Self.record("q5", length: 1), within: quota, now: 21, .overCount)
            try await Self.consume("q1", ledger, staged: false)
            try await Self.expect(ledger, Self.record("q5", length: 1), within: quota, now: 21, .overCount)
            // Consumed, it no longer counts, nor does an expired one, nor a terminated one.
            try await Self.consume("q1", ledger, staged: true)
            try await Self.expect(ledger, Self.record("q5", length: 1), within: quota, now: 21, .created)
            try await Self.expect(ledger, Self.record("q6", length: 0), within: quota, now: 21, .overCount)
            try await Self.expect(ledger, Self.record("q6", length: 0), within: quota, now: 1000, .created)
            #expect(try await ledger.deleteUpload(id: "q6"))
            try await Self.expect(ledger, Self.record("q7", length: 1000), within: quota, now: 1000, .created)
        }
    }

    /// Records a version job made from `uploadId`, staged or still running.
    static func consume(_ uploadId: String, _ ledger: any Ledger, staged: Bool) async throws {
        let id = "job-\(uploadId)-\(staged)"
        let job = VersionJob(
            id: id, productId: "level1", version: "1.\(uploadId).\(staged)", contentId: nil, uploadId: uploadId, publisher: "studio",
            sha256: String(repeating: "0", count: 64), publishedAt: nil, state: .received, createdAt: 20, updatedAt: 20)
        #expect(try await ledger.createVersionJob(job, staleBefore: 0) == .created)
        if staged { #expect(try await ledger.updateVersionJob(id: id, state: .staged, failureReason: nil, now: 21)) }
    }

    @Test(arguments: Engine.tested)
    func finishedUploadsNotYetConsumedCountAgainstTheBytesToo(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let quota = UploadQuota(maxCount: 10, maxBytes: 1000, deferredBytes: 400)
            // One key finishing uploads one after the other cannot hold more than the quota on disk.
            for index in 0..<2 {
                try await Self.expect(ledger, Self.record("f\(index)", length: 400), within: quota, now: 20, .created)
                #expect(try await ledger.advanceUpload(id: "f\(index)", from: 0, to: 400, length: nil, expiresAt: 1000, now: 20))
            }
            try await Self.expect(ledger, Self.record("f2", length: 400), within: quota, now: 20, .overBytes)
            try await Self.consume("f0", ledger, staged: true)
            try await Self.expect(ledger, Self.record("f2", length: 400), within: quota, now: 20, .created)
        }
    }

    @Test(arguments: Engine.tested)
    func sumsThatWouldOverflowAreRefused(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let quota = UploadQuota(maxCount: 10, maxBytes: .max, deferredBytes: .max)
            try await Self.expect(ledger, Self.record("m1", length: nil), within: quota, now: 20, .created)
            try await Self.expect(ledger, Self.record("m2", length: 1), within: quota, now: 20, .overBytes)
            try await Self.expect(ledger, Self.record("m3", length: nil), within: quota, now: 20, .overBytes)
        }
    }

    @Test(arguments: Engine.tested)
    func creationsAtOnceCannotPassTheQuotaTogether(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let quota = UploadQuota(maxCount: 5, maxBytes: 1 << 40, deferredBytes: 1)
            let outcomes = try await withThrowingTaskGroup(of: UploadQuotaOutcome.self) { group in
                for index in 0..<30 {
                    group.addTask { try await ledger.createUpload(Self.record("c\(index)"), within: quota, now: 20) }
                }
                return try await group.reduce(into: [UploadQuotaOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .created }.count == 5)
            #expect(outcomes.filter { $0 == .overCount }.count == 25)
        }
    }
}
