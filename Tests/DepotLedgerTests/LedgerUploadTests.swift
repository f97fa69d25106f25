import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: resumable upload records, on both engines. Offsets move only by compare-and-set, a
/// deferred length is set once, expired uploads are listed for the reaper.
@Suite struct LedgerUploadTests {
    static func record(_ id: String, length: Int64? = 100, expiresAt: Int64 = 1000) -> UploadRecord {
        UploadRecord(
            id: id, publisher: "operator", length: length, offset: 0, metadata: "filename cGFjay56aXA=",
            createdAt: 10, expiresAt: expiresAt)
    }

    @Test(arguments: Engine.tested)
    func recordsAreReadBackAndAdvancedByCompareAndSet(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, ledger in
            #expect(try await fixture.appliedMigrations(ledger).contains { $0.hasSuffix("uploads") })
            try await ledger.createUpload(Self.record("a1"))
            #expect(try await ledger.upload(id: "a1") == Self.record("a1"))
            #expect(try await ledger.upload(id: "missing") == nil)
            // A clash of ids is an error, not an overwrite.
            await #expect(throws: LedgerError.self) { try await ledger.createUpload(Self.record("a1", length: 5)) }

            #expect(try await ledger.advanceUpload(id: "a1", from: 0, to: 40, length: nil, expiresAt: 2000, now: 20))
            // A writer that still believes the offset is 0 moves nothing.
            #expect(try await !ledger.advanceUpload(id: "a1", from: 0, to: 60, length: nil, expiresAt: 2000, now: 21))
            // Nor past the length.
            #expect(try await !ledger.advanceUpload(id: "a1", from: 40, to: 101, length: nil, expiresAt: 2000, now: 21))
            // Nor with a length other than the recorded one.
            #expect(try await !ledger.advanceUpload(id: "a1", from: 40, to: 50, length: 90, expiresAt: 2000, now: 21))
            #expect(try await ledger.advanceUpload(id: "a1", from: 40, to: 100, length: 100, expiresAt: 3000, now: 22))
            let done = try #require(try await ledger.upload(id: "a1"))
            #expect(done.offset == 100 && done.isComplete && done.expiresAt == 3000)
            #expect(try await !ledger.advanceUpload(id: "missing", from: 0, to: 1, length: nil, expiresAt: 1, now: 1))
        }
    }

    @Test(arguments: Engine.tested)
    func aDeferredLengthIsSetOnce(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            try await ledger.createUpload(Self.record("d1", length: nil))
            #expect(try await ledger.upload(id: "d1")?.length == nil)
            #expect(try await ledger.advanceUpload(id: "d1", from: 0, to: 500, length: nil, expiresAt: 2000, now: 20))
            #expect(try await ledger.upload(id: "d1")?.isComplete == false)
            // A length below the offset is refused.
            #expect(try await !ledger.advanceUpload(id: "d1", from: 500, to: 500, length: 400, expiresAt: 2000, now: 21))
            #expect(try await ledger.advanceUpload(id: "d1", from: 500, to: 500, length: 800, expiresAt: 2000, now: 21))
            #expect(try await ledger.upload(id: "d1")?.length == 800)
            #expect(try await !ledger.advanceUpload(id: "d1", from: 500, to: 600, length: 900, expiresAt: 2000, now: 22))
            #expect(try await ledger.advanceUpload(id: "d1", from: 500, to: 800, length: nil, expiresAt: 2000, now: 22))
            #expect(try await ledger.upload(id: "d1")?.isComplete == true)
        }
    }

    @Test(arguments: Engine.tested)
    func expiredUploadsAreListedAndDeleted(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, ledger in
            for (id, expiry) in [("e1", Int64(100)), ("e2", 200), ("e3", 300)] {
                try await ledger.createUpload(Self.record(id, expiresAt: expiry))
            }
            #expect(try await ledger.expiredUploads(now: 99, limit: 10).isEmpty)
            #expect(try await ledger.expiredUploads(now: 200, limit: 10) == ["e1", "e2"])
            #expect(try await ledger.expiredUploads(now: 1000, limit: 2) == ["e1", "e2"])
            #expect(try await ledger.deleteUpload(id: "e1"))
            #expect(try await !ledger.deleteUpload(id: "e1"))
            // Another instance sharing the ledger sees the same records.
            let other = try await fixture.open()
            #expect(try await other.expiredUploads(now: 1000, limit: 10) == ["e2", "e3"])
            #expect(try await other.upload(id: "e3")?.metadata == "filename cGFjay56aXA=")
        }
    }

    @Test(arguments: Engine.tested)
    func partsAreRecordedOnlyWithTheOffsetTheyCountAndGoWithTheUpload(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            try await ledger.createUpload(Self.record("p1"))
            try await ledger.createUpload(Self.record("p2"))
            #expect(try await ledger.advanceUpload(id: "p1", from: 0, to: 30, length: nil, expiresAt: 2000, now: 20, part: "k0"))
            // A part whose writer lost the race is not recorded.
            #expect(try await !ledger.advanceUpload(id: "p1", from: 0, to: 50, length: nil, expiresAt: 2000, now: 21, part: "lost"))
            #expect(try await ledger.advanceUpload(id: "p1", from: 30, to: 100, length: nil, expiresAt: 2000, now: 22, part: "k30"))
            #expect(try await ledger.advanceUpload(id: "p2", from: 0, to: 10, length: nil, expiresAt: 2000, now: 22, part: "q0"))
            #expect(
                try await ledger.uploadParts(id: "p1") == [
                    UploadPart(start: 0, end: 30, key: "k0"), UploadPart(start: 30, end: 100, key: "k30"),
                ])
            #expect(try await ledger.deleteUpload(id: "p1"))
            #expect(try await ledger.uploadParts(id: "p1").isEmpty)
            #expect(try await ledger.uploadParts(id: "p2") == [UploadPart(start: 0, end: 10, key: "q0")])
        }
    }
}
