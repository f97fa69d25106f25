import Testing

@testable import DepotLedger

/// Conformance: a lease is held by one owner until it expires; its owner renews it; another takes it once expired,
/// and instances sharing the ledger agree on who holds it.
@Suite struct LedgerLeaseTests {
    @Test(arguments: Engine.tested)
    func oneOwnerHoldsALeaseUntilItExpires(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, ledger in
            let other = try await fixture.open()
            #expect(try await ledger.acquireLease("collect", owner: "a", now: 100, seconds: 30))
            // Held: another owner is refused, on this instance and on another.
            #expect(try await ledger.acquireLease("collect", owner: "b", now: 110, seconds: 30) == false)
            #expect(try await other.acquireLease("collect", owner: "b", now: 129, seconds: 30) == false)
            // Its owner renews it, which moves the expiry.
            #expect(try await ledger.acquireLease("collect", owner: "a", now: 125, seconds: 30))
            #expect(try await other.acquireLease("collect", owner: "b", now: 140, seconds: 30) == false)
            // Expired (a's holder stopped renewing): b takes it, and a is then refused.
            #expect(try await other.acquireLease("collect", owner: "b", now: 155, seconds: 30))
            #expect(try await ledger.acquireLease("collect", owner: "a", now: 156, seconds: 30) == false)
            // Leases of other names are apart.
            #expect(try await ledger.acquireLease("another", owner: "a", now: 156, seconds: 30))
            // An expiry past the end of time is held to it instead of overflowing.
            #expect(try await ledger.acquireLease("forever", owner: "a", now: .max - 1, seconds: .max))
            #expect(try await other.acquireLease("forever", owner: "b", now: .max - 1, seconds: 1) == false)
        }
    }

    @Test(arguments: Engine.tested)
    func aReleasedLeaseIsFreeAtOnceAndOnlyItsOwnerReleasesIt(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            #expect(try await ledger.acquireLease("upload:x", owner: "a", now: 100, seconds: 30))
            // Another owner's release changes nothing.
            try await ledger.releaseLease("upload:x", owner: "b")
            #expect(try await !ledger.acquireLease("upload:x", owner: "b", now: 101, seconds: 30))
            try await ledger.releaseLease("upload:x", owner: "a")
            #expect(try await ledger.acquireLease("upload:x", owner: "b", now: 101, seconds: 30))
            // Releasing a lease nobody holds is fine.
            try await ledger.releaseLease("nothing", owner: "a")
        }
    }
}
