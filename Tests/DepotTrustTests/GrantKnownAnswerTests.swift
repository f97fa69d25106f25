import Crypto
import DepotCore
import Testing

@testable import DepotTrust

/// Grants, sealed transaction fields and finish tokens, byte for byte, against the formats recomputed here with
/// swift-crypto's one-shot HMAC: however the authority computes its MACs, the tokens it hands out stay the same.
@Suite("Grant known answers")
struct GrantKnownAnswerTests {
    static let secret: [UInt8] = Array(0..<32)
    static let transactionId = "2000000012345678901234567890123456789"

    static func mac(_ message: String, _ key: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(message.utf8), using: SymmetricKey(data: key)))
    }

    /// The sealed field as TransactionSeal documents it: an 8-byte synthetic IV under k₁, then the id XORed with an
    /// HMAC keystream under k₂ (two blocks for an id longer than 32 bytes).
    static func expectedField(_ id: String) -> String {
        let ivKey = mac("depot-transaction-seal-iv", secret)
        let streamKey = mac("depot-transaction-seal-stream", secret)
        let plain = Array(id.utf8)
        let iv = Array(
            HMAC<SHA256>.authenticationCode(for: plain, using: SymmetricKey(data: ivKey)).prefix(8))
        var stream: [UInt8] = []
        var counter: UInt8 = 0
        while stream.count < plain.count {
            stream += HMAC<SHA256>.authenticationCode(for: iv + [counter], using: SymmetricKey(data: streamKey))
            counter += 1
        }
        return Base64URL.encode(iv + zip(plain, stream).map { $0 ^ $1 })
    }

    @Test func grantIsTheDocumentedHMACOfItsFields() throws {
        let authority = try GrantAuthority(keys: [GrantKey(id: "k1", secret: Self.secret)], activeKeyId: "k1")
        let digest = BundleDigest(hex: String(repeating: "ab", count: 32))!
        let field = Self.expectedField(Self.transactionId)
        let message = "depot-grant-v1\nk1\n\(digest.hex)\n1800000000\n\(field)"
        let expected = "g1.k1.1800000000.\(field).\(Base64URL.encode(Self.mac(message, Self.secret)))"
        #expect(authority.issue(digest: digest, expiresAt: 1_800_000_000, transactionId: Self.transactionId) == expected)
        let opened = try authority.verify(expected, digest: digest, now: 1_700_000_000)
        #expect(opened.transactionId == Self.transactionId)
    }

    @Test func finishTokenIsTheDocumentedHMACOfTheTransactionId() throws {
        let authority = try GrantAuthority(keys: [GrantKey(id: "k1", secret: Self.secret)], activeKeyId: "k1")
        let mac = Self.mac("depot-finish-v1\n\(Self.transactionId)", Self.secret)
        let expected = "f1.k1.\(Base64URL.encode(mac))"
        #expect(authority.finishToken(transactionId: Self.transactionId) == expected)
        #expect(authority.isValidFinishToken(expected, transactionId: Self.transactionId))
        #expect(!authority.isValidFinishToken(expected, transactionId: Self.transactionId + "0"))
    }
}
