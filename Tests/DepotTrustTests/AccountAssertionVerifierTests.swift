import Crypto
import DepotCore
import Foundation
import Testing

@testable import DepotTrust

/// Account assertions: the studio backend's ES256 tokens proving which account a restore by account lists. Every
/// refusal names its check; nothing in a token picks a key or stretches its life.
@Suite("Account assertions")
struct AccountAssertionVerifierTests {
    static let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    static let audience = "com.example.game"
    static let now: Int64 = 1_790_000_000
    static let studio = P256.Signing.PrivateKey()
    static let rotated = P256.Signing.PrivateKey()
    static let stranger = P256.Signing.PrivateKey()

    static let verifier = AccountAssertionVerifier(
        keys: [
            AccountAssertionKey(id: "studio-1", key: studio.publicKey),
            AccountAssertionKey(id: "studio-2", key: rotated.publicKey),
        ],
        audience: audience, maxLifetimeSeconds: 600)

    static func issuer(_ key: P256.Signing.PrivateKey = studio, kid: String = "studio-1") -> DevelopmentAccountAssertionIssuer {
        DevelopmentAccountAssertionIssuer(key: key, keyId: kid, audience: audience)
    }

    /// Claims valid at `now`, changed by `change`.
    static func claims(_ change: (inout [String: JSONValue]) -> Void = { _ in }) -> [String: JSONValue] {
        var claims = issuer().claims(account: account, issuedAt: now - 10, lifetime: 300)
        change(&claims)
        return claims
    }

    /// `header.payload.signature` from raw parts.
    static func token(header: [String: JSONValue], claims: [String: JSONValue], signature: [UInt8]) throws -> String {
        Base64URL.encode(try JSONValue.encodeObject(header)) + "." + Base64URL.encode(try JSONValue.encodeObject(claims)) + "."
            + Base64URL.encode(signature)
    }

    @Test func aValidAssertionProvesItsAccountWithEitherKey() throws {
        let verified = try Self.verifier.verify(try Self.issuer().sign(claims: Self.claims()), now: Self.now)
        #expect(verified == VerifiedAccountAssertion(account: Self.account, keyId: "studio-1", expiresAt: Self.now + 290))
        let rotated = try Self.verifier.verify(try Self.issuer(Self.rotated, kid: "studio-2").sign(claims: Self.claims()), now: Self.now)
        #expect(rotated.account == Self.account)
        // `aud` may be an array naming the audience (RFC 7519 §4.1.3); `iat` a little ahead of the clock.
        let listed = Self.claims { $0["aud"] = ["another", .string(Self.audience)] }
        #expect(try Self.verifier.verify(try Self.issuer().sign(claims: listed), now: Self.now).account == Self.account)
        let ahead = Self.claims {
            $0["iat"] = .integer(Self.now + 30)
            $0["exp"] = .integer(Self.now + 300)
        }
        #expect(try Self.verifier.verify(try Self.issuer().sign(claims: ahead), now: Self.now).account == Self.account)
    }

    /// One refused assertion: how it is made, and the check it fails.
    struct Refusal: CustomTestStringConvertible, Sendable {
        let name: String
        let check: AccountAssertionError.Check
        let make: @Sendable () throws -> String
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "signed by another key under a known kid", check: .signature) {
            try issuer(stranger).sign(claims: claims())
        },
        Refusal(name: "signed by the rotated key under the first kid", check: .signature) {
            try issuer(rotated).sign(claims: claims())
        },
        Refusal(name: "expired", check: .expired) {
            try issuer().sign(claims: claims { $0["exp"] = .integer(now - 1) })
        },
        Refusal(name: "expiring now", check: .expired) {
            try issuer().sign(claims: claims { $0["exp"] = .integer(now) })
        },
        Refusal(name: "no exp", check: .expired) { try issuer().sign(claims: claims { $0.removeValue(forKey: "exp") }) },
        Refusal(name: "exp as a string", check: .expired) {
            try issuer().sign(claims: claims { $0["exp"] = .string("\(now + 100)") })
        },
        Refusal(name: "exp as a fraction", check: .expired) {
            try issuer().sign(claims: claims { $0["exp"] = .number(Double(now) + 100.5) })
        },
        Refusal(name: "huge exp", check: .lifetime) {
            try issuer().sign(claims: claims { $0["exp"] = .integer(.max) })
        },
        Refusal(name: "huge exp from the first instant", check: .lifetime) {
            try issuer().sign(
                claims: claims {
                    $0["exp"] = .integer(.max)
                    $0["iat"] = .integer(.min)
                })
        },
        Refusal(name: "lifetime one second too long", check: .lifetime) {
            try issuer().sign(
                claims: claims {
                    $0["iat"] = .integer(now - 10)
                    $0["exp"] = .integer(now + 591)
                })
        },
        Refusal(name: "exp before iat", check: .lifetime) {
            try issuer().sign(
                claims: claims {
                    $0["iat"] = .integer(now + 50)
                    $0["exp"] = .integer(now + 40)
                })
        },
        Refusal(name: "issued in the future", check: .issuedAt) {
            try issuer().sign(
                claims: claims {
                    $0["iat"] = .integer(now + 61)
                    $0["exp"] = .integer(now + 300)
                })
        },
        Refusal(name: "no iat", check: .issuedAt) { try issuer().sign(claims: claims { $0.removeValue(forKey: "iat") }) },
        Refusal(name: "not valid before later", check: .issuedAt) {
            try issuer().sign(claims: claims { $0["nbf"] = .integer(now + 120) })
        },
        Refusal(name: "wrong audience", check: .audience) {
            try issuer().sign(claims: claims { $0["aud"] = "com.example.other" })
        },
        Refusal(name: "no audience", check: .audience) { try issuer().sign(claims: claims { $0.removeValue(forKey: "aud") }) },
        Refusal(name: "audience list without ours", check: .audience) {
            try issuer().sign(claims: claims { $0["aud"] = ["com.example.other"] })
        },
        Refusal(name: "sub not a UUID", check: .subject) {
            try issuer().sign(claims: claims { $0["sub"] = "player-42" })
        },
        Refusal(name: "sub in capitals", check: .subject) {
            try issuer().sign(claims: claims { $0["sub"] = .string(account.uppercased()) })
        },
        Refusal(name: "sub without dashes", check: .subject) {
            try issuer().sign(claims: claims { $0["sub"] = .string(account.replacingOccurrences(of: "-", with: "")) })
        },
        Refusal(name: "sub braced", check: .subject) {
            try issuer().sign(claims: claims { $0["sub"] = .string("{\(account)}") })
        },
        Refusal(name: "no sub", check: .subject) { try issuer().sign(claims: claims { $0.removeValue(forKey: "sub") }) },
        Refusal(name: "sub as a number", check: .subject) { try issuer().sign(claims: claims { $0["sub"] = 42 }) },
        Refusal(name: "unknown kid", check: .key) { try issuer(kid: "studio-9").sign(claims: claims()) },
        Refusal(name: "no kid", check: .key) { try issuer().sign(claims: claims(), header: ["alg": "ES256"]) },
        Refusal(name: "kid as a path", check: .key) {
            try issuer().sign(claims: claims(), header: ["alg": "ES256", "kid": "../../restore-es256.pem"])
        },
        Refusal(name: "kid as an object", check: .key) {
            try issuer().sign(claims: claims(), header: ["alg": "ES256", "kid": ["id": "studio-1"]])
        },
        Refusal(name: "a key carried in the header", check: .signature) {
            // The token brings its own key (jwk), signed with it: the key is never taken from the token.
            let jwk: JSONValue = ["kty": "EC", "crv": "P-256"]
            return try issuer(stranger).sign(claims: claims(), header: ["alg": "ES256", "kid": "studio-1", "jwk": jwk])
        },
        Refusal(name: "alg none", check: .algorithm) {
            try token(header: ["alg": "none", "kid": "studio-1"], claims: claims(), signature: [])
        },
        Refusal(name: "alg HS256 keyed with the public key", check: .algorithm) {
            let header: [String: JSONValue] = ["alg": "HS256", "kid": "studio-1"]
            let input =
                Base64URL.encode(try JSONValue.encodeObject(header)) + "." + Base64URL.encode(try JSONValue.encodeObject(claims()))
            let mac = HMAC<SHA256>.authenticationCode(
                for: Array(input.utf8), using: SymmetricKey(data: studio.publicKey.derRepresentation))
            return input + "." + Base64URL.encode(Array(mac))
        },
        Refusal(name: "alg es256 in lowercase", check: .algorithm) {
            try issuer().sign(claims: claims(), header: ["alg": "es256", "kid": "studio-1"])
        },
        Refusal(name: "no alg", check: .algorithm) { try issuer().sign(claims: claims(), header: ["kid": "studio-1"]) },
        Refusal(name: "critical extension", check: .malformed) {
            try issuer().sign(claims: claims(), header: ["alg": "ES256", "kid": "studio-1", "crit": ["exp"]])
        },
        Refusal(name: "tampered payload", check: .signature) {
            let parts = try issuer().sign(claims: claims()).split(separator: ".").map(String.init)
            let other = claims { $0["sub"] = "0f1e2d3c-4b5a-4978-8685-746352413021" }
            return parts[0] + "." + Base64URL.encode(try JSONValue.encodeObject(other)) + "." + parts[2]
        },
        Refusal(name: "signature cut short", check: .signature) {
            let parts = try issuer().sign(claims: claims()).split(separator: ".").map(String.init)
            return parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(Base64URL.decode(parts[2])!.prefix(63)))
        },
        Refusal(name: "signature in DER, not raw r||s", check: .signature) {
            let parts = try issuer().sign(claims: claims()).split(separator: ".").map(String.init)
            let der = try studio.signature(for: Array((parts[0] + "." + parts[1]).utf8)).derRepresentation
            return parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(der))
        },
        Refusal(name: "two parts", check: .malformed) {
            let parts = try issuer().sign(claims: claims()).split(separator: ".")
            return parts[0] + "." + parts[1]
        },
        Refusal(name: "not base64url", check: .malformed) { "e30.e30.***" },
        Refusal(name: "empty", check: .malformed) { "" },
        Refusal(name: "a payload that is not an object", check: .malformed) {
            let input =
                Base64URL.encode(try JSONValue.encodeObject(["alg": "ES256", "kid": "studio-1"])) + "."
                + Base64URL.encode(Array("[1,2]".utf8))
            return input + "." + Base64URL.encode(Array(try studio.signature(for: Array(input.utf8)).rawRepresentation))
        },
        Refusal(name: "a payload that is not an object, signed by a stranger", check: .signature) {
            // The payload is never read before the signature holds.
            let input =
                Base64URL.encode(try JSONValue.encodeObject(["alg": "ES256", "kid": "studio-1"])) + "."
                + Base64URL.encode(Array("[1,2]".utf8))
            return input + "." + Base64URL.encode(Array(try stranger.signature(for: Array(input.utf8)).rawRepresentation))
        },
        Refusal(name: "oversized", check: .malformed) {
            try issuer().sign(claims: claims { $0["pad"] = .string(String(repeating: "x", count: 5_000)) })
        },
    ]

    @Test(arguments: refusals)
    func eachRefusalNamesItsCheck(_ refusal: Refusal) throws {
        let token = try refusal.make()
        #expect(throws: AccountAssertionError.self) { try Self.verifier.verify(token, now: Self.now) }
        do {
            _ = try Self.verifier.verify(token, now: Self.now)
        } catch {
            #expect(error.check == refusal.check, "\(refusal.name): \(error)")
            #expect(error.code.description == "account-assertion-invalid")
            #expect(!error.message.contains(token.prefix(20)), "the message never echoes the token")
        }
    }

    @Test func theLifetimeIsHeldWithinItsBounds() {
        #expect(AccountAssertionVerifier(keys: [], audience: "a", maxLifetimeSeconds: 0).maxLifetimeSeconds == 1)
        #expect(AccountAssertionVerifier(keys: [], audience: "a", maxLifetimeSeconds: .max).maxLifetimeSeconds == 86_400)
        // The clock at its edge does not trap.
        #expect(throws: AccountAssertionError.self) {
            try Self.verifier.verify(try Self.issuer().sign(claims: Self.claims()), now: .max)
        }
        #expect(throws: AccountAssertionError.self) {
            try Self.verifier.verify(try Self.issuer().sign(claims: Self.claims()), now: .min)
        }
    }

    @Test func aKeyIsReadFromPEMAndAnythingElseRefused() throws {
        let issuer = Self.issuer()
        let key = try AccountAssertionKey(id: "studio-1", pem: issuer.publicKeyPEM)
        let verifier = AccountAssertionVerifier(keys: [key], audience: Self.audience, maxLifetimeSeconds: 600)
        #expect(try verifier.verify(try issuer.sign(claims: Self.claims()), now: Self.now).account == Self.account)
        #expect(throws: AccountAssertionKeyError.self) { try AccountAssertionKey(id: "studio-1", pem: "not a key") }
        #expect(throws: AccountAssertionKeyError.self) { try AccountAssertionKey(id: "", pem: issuer.publicKeyPEM) }
        let rsa =
            "-----BEGIN PUBLIC KEY-----\nMFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf\n9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ==\n-----END PUBLIC KEY-----\n"
        #expect(throws: AccountAssertionKeyError.self) { try AccountAssertionKey(id: "rsa", pem: rsa) }
        let issuerFromPEM = try DevelopmentAccountAssertionIssuer(
            pem: Self.studio.pemRepresentation, keyId: "studio-1", audience: Self.audience)
        #expect(
            try Self.verifier.verify(try issuerFromPEM.sign(account: Self.account, issuedAt: Self.now), now: Self.now).account
                == Self.account)
    }
}
