import DepotCore
import DepotTestSupport
import Foundation
import Testing

@testable import DepotTrust

/// Mutated grants and mutated genuine App Store JWS, generated from a fixed seed: nothing traps, every
/// refusal is a typed error, and nothing that changed the signed bytes is ever accepted.
@Suite("Grants and signed transactions under mutation")
struct TrustFuzzTests {
    /// SeededBytes: the same mutations on every run.
    struct Mutator {
        var random: SeededBytes

        init(state: UInt64) { random = SeededBytes(seed: state) }

        mutating func next() -> UInt64 { random.next() }

        mutating func below(_ bound: Int) -> Int { random.below(max(bound, 1)) }

        /// One to three edits: flip a bit, replace, insert or delete a byte, cut, duplicate a slice, or
        /// put one of the separators or a hostile byte somewhere.
        mutating func mutate(_ text: String) -> [UInt8] {
            var bytes = Array(text.utf8)
            let specials: [UInt8] = [0x2E, 0x2D, 0x5F, 0x2B, 0x2F, 0x3D, 0x00, 0xFF, 0x0A, 0x20, 0x41, 0x61, 0x30]
            for _ in 0...below(3) {
                let position = below(bytes.count + 1)
                switch below(7) {
                case 0 where position < bytes.count: bytes[position] ^= UInt8(1 << below(8))
                case 1 where position < bytes.count: bytes[position] = UInt8(truncatingIfNeeded: next())
                case 2: bytes.insert(specials[below(specials.count)], at: position)
                case 3 where position < bytes.count: bytes.remove(at: position)
                case 4: bytes = Array(bytes.prefix(position))
                case 5 where position < bytes.count:
                    let end = min(bytes.count, position + 1 + below(64))
                    bytes.insert(contentsOf: bytes[position..<end], at: position)
                default:
                    if position < bytes.count { bytes[position] = specials[below(specials.count)] }
                }
            }
            return bytes
        }
    }

    @Test func mutatedGrantsAreRefusedWithATypedErrorOrAreTheSameGrant() throws {
        let authority = try GrantAuthority(
            keys: [GrantKey(id: "k1", secret: Array(repeating: 7, count: 32))], activeKeyId: "k1")
        let digest = BundleDigest(hex: String(repeating: "5a", count: 32))!
        let grant = authority.issue(digest: digest, expiresAt: 2_000_000_000, transactionId: "2000000123456789")
        let original = try authority.verify(grant, digest: digest, now: 1_000)
        var mutator = Mutator(state: 20_261_123)
        var accepted = 0
        for _ in 0..<20_000 {
            let bytes = mutator.mutate(grant)
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                let parsed = try authority.verify(text, digest: digest, now: 1_000)
                // Only a token whose signed fields are unchanged may open the bundle (base64url's unused
                // low bits in the last character of the MAC can change without changing the MAC).
                #expect(parsed == original, "\(text)")
                accepted += 1
            } catch {
                _ = error.code
            }
            _ = GrantToken.parse(text)
        }
        #expect(accepted < 20_000 / 100, "\(accepted) mutations were accepted")
    }

    @Test func mutatedGenuineTransactionsAreRefusedWithATypedErrorOrVerifyTheSamePayload() async throws {
        let jws = try GenuineAppleDataTests.text("apple-signed/05a-session-DID_RENEW-signedTransactionInfo.jws")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let verifier = try GenuineAppleDataTests.verifier(at: GenuineAppleDataTests.renewalSignedDate)
        let original = try await verifier.verifyTransaction(jws)
        var mutator = Mutator(state: 7)
        var codes: Set<String> = []
        for _ in 0..<1_500 {
            let text = String(decoding: mutator.mutate(jws), as: UTF8.self)
            do {
                let transaction = try await verifier.verifyTransaction(text)
                #expect(transaction.transactionId == original.transactionId)
                #expect(transaction.purchaseDate == original.purchaseDate)
                #expect(transaction.signedDate == original.signedDate)
            } catch {
                codes.insert("\(error.code)")
            }
        }
        // The mutations reached more than one check (malformed, signature, chain ...).
        #expect(codes.count >= 2, "\(codes)")
    }
}
