import Crypto
import Foundation

/// Issues account assertions as a studio's backend does (ES256 compact JWS over `sub`, `aud`, `iat`, `exp`), for
/// development and tests: `depot dev sign-account-assertion` and the tests of restore by account. A production
/// backend signs with its own JWT library and keeps its private key to itself.
package struct DevelopmentAccountAssertionIssuer: Sendable {
    /// The P-256 private key.
    package let key: P256.Signing.PrivateKey
    /// The `kid` its assertions carry.
    package var keyId: String
    /// The `aud` its assertions carry.
    package var audience: String

    /// An issuer signing with `key` under `keyId` for `audience`.
    package init(key: P256.Signing.PrivateKey, keyId: String, audience: String) {
        self.key = key
        self.keyId = keyId
        self.audience = audience
    }

    /// An issuer with the key in `pem` (`-----BEGIN PRIVATE KEY-----` PKCS #8, or `-----BEGIN EC PRIVATE KEY-----`).
    package init(pem: String, keyId: String, audience: String) throws(AccountAssertionKeyError) {
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw AccountAssertionKeyError("is not a P-256 private key in PEM")
        }
        self.keyId = keyId
        self.audience = audience
    }

    /// An issuer with a new key.
    package static func generated(keyId: String, audience: String) -> DevelopmentAccountAssertionIssuer {
        DevelopmentAccountAssertionIssuer(key: P256.Signing.PrivateKey(), keyId: keyId, audience: audience)
    }

    /// The private key in PEM (PKCS #8), to keep for later assertions.
    package var privateKeyPEM: String { key.pemRepresentation }

    /// The public key in PEM, for `restore.accountAssertion.keys[].publicKeyFile`.
    package var publicKeyPEM: String { key.publicKey.pemRepresentation }

    /// The claims of an assertion for `account` issued at `issuedAt` (seconds since 1970) for `lifetime` seconds.
    package func claims(account: String, issuedAt: Int64, lifetime: Int64) -> [String: JSONValue] {
        let (expires, overflow) = issuedAt.addingReportingOverflow(lifetime)
        return [
            "sub": .string(account), "aud": .string(audience), "iat": .integer(issuedAt),
            "exp": .integer(overflow ? .max : expires),
        ]
    }

    /// An assertion for `account` issued at `issuedAt` (seconds since 1970) for `lifetime` seconds.
    package func sign(account: String, issuedAt: Int64, lifetime: Int64 = 300) throws -> String {
        try sign(claims: claims(account: account, issuedAt: issuedAt, lifetime: lifetime))
    }

    /// An assertion of any claims and header (by default `{"alg": "ES256", "kid": keyId}`), for tests of refusals.
    package func sign(claims: [String: JSONValue], header: [String: JSONValue]? = nil) throws -> String {
        try CompactJWS.signES256(
            header: header ?? ["alg": "ES256", "kid": .string(keyId)], payload: claims, key: key)
    }
}
