import DepotCore
import Testing

@testable import DepotTrust

/// Grant URLs do not show the transaction id, and only the redeemer's finish token finishes a transaction.
@Suite("Sealed transaction ids and finish tokens")
struct GrantPrivacyTests {
    static let digest = BundleDigest(hex: String(repeating: "ab", count: 32))!

    @Test(arguments: ["2000000123456789", "7351", "tx-with_other.chars", String(repeating: "9", count: 64)])
    func aGrantCarriesItsTransactionSealed(id: String) throws {
        let authority = try GrantAuthorityTests.authority()
        let grant = authority.issue(digest: Self.digest, expiresAt: 1_000, transactionId: id)
        #expect(!grant.contains(id))
        #expect(try authority.verify(grant, digest: Self.digest, now: 1).transactionId == id)
        // Deterministic: every grant of the transaction carries the same field, under the same key.
        let again = authority.issue(digest: BundleDigest(hex: String(repeating: "cd", count: 32))!, expiresAt: 2_000, transactionId: id)
        #expect(grant.split(separator: ".")[3] == again.split(separator: ".")[3])
    }

    @Test func aSealedFieldFromAnotherKeyDoesNotOpen() throws {
        let k1 = try GrantKey(id: "k1", secret: Array(repeating: 1, count: 32))
        let k2 = try GrantKey(id: "k2", secret: Array(repeating: 2, count: 32))
        let field = TransactionSeal.seal("2000000123", key: k1)
        #expect(TransactionSeal.open(Substring(field), key: k1) == "2000000123")
        #expect(TransactionSeal.open(Substring(field), key: k2) == nil)
        #expect(TransactionSeal.open("", key: k1) == "")
        #expect(TransactionSeal.open("AAAA", key: k1) == nil)
    }

    @Test func finishTokenIsStableAndBoundToItsTransaction() throws {
        let authority = try GrantAuthorityTests.authority()
        let token = authority.finishToken(transactionId: "2000000123")
        #expect(token == authority.finishToken(transactionId: "2000000123"))
        #expect(authority.isValidFinishToken(token, transactionId: "2000000123"))
        #expect(!authority.isValidFinishToken(token, transactionId: "2000000124"))
        #expect(!authority.isValidFinishToken(authority.finishToken(transactionId: "2000000124"), transactionId: "2000000123"))
        // After a rotation the old token still works while its key is configured.
        let rotated = try GrantAuthorityTests.authority(active: "k2")
        #expect(rotated.isValidFinishToken(token, transactionId: "2000000123"))
    }

    @Test(arguments: [
        "", "f1", "f1.k1.", "f1.k9.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "f2.k1.x", "f1.k1.x.y",
        String(repeating: "f1.", count: 100),
    ])
    func malformedFinishTokensAreRefused(token: String) throws {
        let authority = try GrantAuthorityTests.authority()
        #expect(!authority.isValidFinishToken(token, transactionId: "2000000123"))
    }
}
