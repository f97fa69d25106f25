import Crypto
import Foundation
import Testing

@testable import DepotTrust

/// A chain built once is kept: later tokens presenting it are checked by their signature and date only, and are
/// refused exactly as before when either does not hold.
@Suite("Verified chains kept")
struct VerifiedChainCacheTests {
    @Test func aKnownChainIsCheckedByItsSignatureAndDateOnly() async throws {
        var options = TestChain.Options()
        options.leafValidity = (TestChain.year2020, TestChain.year2030)
        let chain = try TestChain(options)
        let verifier = try chain.verifier(now: TestChain.year2040)
        #expect(verifier.verifiedChainCount == 0)
        let first = try await verifier.verifyTransaction(try chain.sign(TestChain.transaction()))
        #expect(verifier.verifiedChainCount == 1)
        let second = try await verifier.verifyTransaction(
            try chain.sign(TestChain.transaction(["transactionId": "2000000000000002"])))
        #expect(first.transactionId == "2000000000000001" && second.transactionId == "2000000000000002")
        #expect(verifier.verifiedChainCount == 1)

        // The same chain, another key's signature: refused as before.
        let forged = try chain.sign(TestChain.transaction(), key: P256.Signing.PrivateKey())
        await #expect(throws: AppStoreVerificationError.self) { try await verifier.verifyTransaction(forged) }
        do {
            _ = try await verifier.verifyTransaction(forged)
        } catch {
            #expect(error.code == .signatureInvalid)
        }

        // The same chain, signed after its leaf expired: outside the kept window, refused with its own reason.
        let late: Int64 = 1_956_528_000_000  // 2032
        let expired = try chain.sign(
            TestChain.transaction(["signedDate": .integer(late), "purchaseDate": .integer(late - 1_000)]))
        do {
            _ = try await verifier.verifyTransaction(expired)
            Issue.record("a token signed after its leaf expired was accepted")
        } catch {
            #expect(error.code == .certificateExpired)
        }
        #expect(verifier.verifiedChainCount == 1)
    }

    @Test func aChainThatFailedIsNotKept() async throws {
        let chain = try TestChain()
        let stranger = try TestChain()
        // Trusting only the stranger's root, the chain does not lead to a trusted root, every time.
        let verifier = try stranger.verifier()
        let token = try chain.sign(TestChain.transaction())
        for _ in 0..<2 {
            do {
                _ = try await verifier.verifyTransaction(token)
                Issue.record("an untrusted chain was accepted")
            } catch {
                #expect(error.code == .chainUntrusted)
            }
        }
        #expect(verifier.verifiedChainCount == 0)
    }

    @Test func atMostCapacityChainsAreKept() {
        let cache = VerifiedChainCache()
        let entry = VerifiedChainCache.Entry(
            leafKey: P256.Signing.PrivateKey().publicKey, validFrom: TestChain.year2020, validUntil: TestChain.year2040)
        for index in 0..<(VerifiedChainCache.capacity + 10) { cache.keep(entry, as: "chain-\(index)") }
        #expect(cache.count == VerifiedChainCache.capacity)
        #expect(VerifiedChainCache.key(of: ["x5c": .array([.string("a"), .string("b")])]) == nil)
        #expect(VerifiedChainCache.key(of: ["x5c": .array([.string("a"), .string("b"), .string("c")])]) == "a.b.c.")
    }
}
