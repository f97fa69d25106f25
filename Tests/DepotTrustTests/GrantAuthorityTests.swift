import DepotCore
import Testing

@testable import DepotTrust

@Suite("Grants")
struct GrantAuthorityTests {
    static let digest = BundleDigest(hex: String(repeating: "ab", count: 32))!
    static let otherDigest = BundleDigest(hex: String(repeating: "cd", count: 32))!

    static func authority(active: String = "k1") throws -> GrantAuthority {
        try GrantAuthority(
            keys: [
                GrantKey(id: "k1", secret: Array(repeating: 1, count: 32)),
                GrantKey(id: "k2", secret: Array(repeating: 2, count: 32)),
            ],
            activeKeyId: active)
    }

    @Test func issuedGrantOpensItsBundleUntilExpiry() throws {
        let authority = try Self.authority()
        let grant = authority.issue(digest: Self.digest, expiresAt: 1_000, transactionId: "2000000123")
        let parsed = try authority.verify(grant, digest: Self.digest, now: 999)
        #expect(parsed.keyId == "k1")
        #expect(parsed.transactionId == "2000000123")
        #expect(parsed.expiresAt == 1_000)
    }

    @Test func expiredGrantIsRefused() throws {
        let authority = try Self.authority()
        let grant = authority.issue(digest: Self.digest, expiresAt: 1_000)
        #expect(throws: GrantError(.expired, "the grant has expired; ask for the downloads again for a fresh one")) {
            try authority.verify(grant, digest: Self.digest, now: 1_000)
        }
    }

    @Test func grantForAnotherBundleIsRefused() throws {
        let authority = try Self.authority()
        let grant = authority.issue(digest: Self.otherDigest, expiresAt: 1_000)
        let error = #expect(throws: GrantError.self) { try authority.verify(grant, digest: Self.digest, now: 1) }
        #expect(error?.code == .badSignature)
    }

    @Test func respelledExpiryIsMalformed() throws {
        // The MAC covers the expiry's value: with a leading zero the same grant would verify under a second
        // spelling, so the parser takes only the one the server writes.
        let authority = try Self.authority()
        let grant = authority.issue(digest: Self.digest, expiresAt: 1_000)
        var fields = grant.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(fields[2] == "1000")
        fields[2] = "01000"
        let respelled = fields.joined(separator: ".")
        let error = #expect(throws: GrantError.self) { try authority.verify(respelled, digest: Self.digest, now: 1) }
        #expect(error?.code == .malformed)
        #expect(GrantToken.parse(respelled) == nil)
        #expect(GrantToken.parse(authority.issue(digest: Self.digest, expiresAt: 0))?.expiresAt == 0)
    }

    enum Alteration: CaseIterable { case expiry, transaction, mac }

    @Test(arguments: Alteration.allCases)
    func alteredGrantIsRefused(alteration: Alteration) throws {
        let authority = try Self.authority()
        var fields = authority.issue(digest: Self.digest, expiresAt: 1_000, transactionId: "2000000001")
            .split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        switch alteration {
        case .expiry: fields[2] = "9999"
        case .transaction:
            fields[3] = TransactionSeal.seal("2000000002", key: try GrantKey(id: "k1", secret: Array(repeating: 1, count: 32)))
        case .mac: fields[4] = String(fields[4].dropLast()) + (fields[4].hasSuffix("A") ? "B" : "A")
        }
        let grant = fields.joined(separator: ".")
        let error = #expect(throws: GrantError.self) { try authority.verify(grant, digest: Self.digest, now: 1) }
        #expect(error?.code == .badSignature || error?.code == .malformed)
    }

    @Test(arguments: [
        "", "g1", "g1....", "g2.k1.1000..AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "g1.k1.-5..AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "g1.k1.1000..AAAA",
        "g1.k 1.1000..AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "g1.k1.1000..AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        String(repeating: "g1.", count: 400), "g1.k1.99999999999999999999..AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "g1.k1.1000..AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\u{00e9}",
    ])
    func malformedTokensAreRefused(token: String) throws {
        let authority = try Self.authority()
        let error = #expect(throws: GrantError.self) { try authority.verify(token, digest: Self.digest, now: 1) }
        #expect(error?.code == .malformed)
    }

    @Test func rotatedKeysStillCheckOldGrantsUntilRemoved() throws {
        let old = try Self.authority(active: "k1")
        let grant = old.issue(digest: Self.digest, expiresAt: 1_000)
        let rotated = try Self.authority(active: "k2")
        #expect(try rotated.verify(grant, digest: Self.digest, now: 1).keyId == "k1")
        #expect(rotated.issue(digest: Self.digest, expiresAt: 1_000).hasPrefix("g1.k2."))
        let removed = try GrantAuthority(keys: [GrantKey(id: "k2", secret: Array(repeating: 2, count: 32))], activeKeyId: "k2")
        let error = #expect(throws: GrantError.self) { try removed.verify(grant, digest: Self.digest, now: 1) }
        #expect(error?.code == .unknownKey)
    }

    @Test func weakKeysAndBadConfigurationsAreRefused() {
        #expect(throws: GrantError.self) { try GrantKey(id: "k1", secret: Array(repeating: 1, count: 31)) }
        #expect(throws: GrantError.self) { try GrantKey(id: "bad id", secret: Array(repeating: 1, count: 32)) }
        #expect(throws: GrantError.self) {
            try GrantAuthority(keys: [GrantKey(id: "k1", secret: Array(repeating: 1, count: 32))], activeKeyId: "k9")
        }
    }

    @Test(arguments: [[UInt8](), [0], [0, 1], [0, 1, 2], (0...255).map { UInt8($0) }] as [[UInt8]])
    func base64URLRoundTrips(bytes: [UInt8]) {
        let text = Base64URL.encode(bytes)
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
        #expect(Base64URL.decode(text) == bytes)
    }

    @Test(arguments: ["A", "AB=", "A+", "AB/", "AR"])
    func base64URLRefusesNonCanonicalText(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
