import Testing

@testable import DepotLedger

/// Conformance: publisher keys are kept by digest, listed, found by digest and revoked once.
@Suite struct LedgerPublisherKeyTests {
    @Test(arguments: Engine.tested)
    func keysAreStoredListedFoundAndRevoked(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, ledger in
            let all = PublisherKeyRecord(
                id: "k1", publisher: "studio", productPrefixes: [], keyDigest: Array(repeating: 1, count: 32), createdAt: 10)
            let scoped = PublisherKeyRecord(
                id: "k2", publisher: "magazine", productPrefixes: ["com.example.magazine.", "com.example.news"],
                keyDigest: Array(repeating: 2, count: 32), createdAt: 20)
            try await ledger.createPublisherKey(all)
            try await ledger.createPublisherKey(scoped)
            #expect(try await ledger.publisherKeys() == [all, scoped])
            #expect(try await ledger.publisherKey(digest: scoped.keyDigest) == scoped)
            #expect(try await ledger.publisherKey(digest: Array(repeating: 3, count: 32)) == nil)

            #expect(try await ledger.revokePublisherKey(id: "k2", now: 30) == .revoked)
            #expect(try await ledger.revokePublisherKey(id: "k2", now: 40) == .alreadyRevoked)
            #expect(try await ledger.revokePublisherKey(id: "nope", now: 40) == .unknownKey)
            // Another instance sees the revocation.
            let other = try await fixture.open()
            #expect(try await other.publisherKey(digest: scoped.keyDigest)?.revokedAt == 30)
            #expect(try await other.publisherKey(digest: all.keyDigest)?.revokedAt == nil)
        }
    }
}
