import Crypto
import Foundation

/// Verifies account assertions: compact JWS (JWT) tokens the studio's own backend signs with ES256 after it
/// authenticated the player, proving which account a restore by account may list. Header
/// `{"alg": "ES256", "kid": "<configured key id>"}`; payload `{"sub": "<account UUID>", "aud": "<audience>",
/// "iat": <seconds>, "exp": <seconds>}`.
///
/// Checks, in order, each refusal an ``AccountAssertionError`` naming it: at most ``maximumLength`` bytes; three
/// base64url parts with JSON object header and payload; `alg` exactly `ES256` and no `crit`; `kid` one of the
/// configured keys (looked up by name only: no key is ever taken from the token); the signature; then, once the
/// token is known to be the backend's, `aud`, `exp` after now, `iat` not after now beyond ``clockSkewSeconds``,
/// `nbf` (when present) likewise, `0 < exp - iat <= maxLifetimeSeconds`, and `sub` a UUID in canonical lowercase.
package struct AccountAssertionVerifier: Sendable {
    /// Longest token accepted, in bytes: an ES256 assertion with these claims is about 400.
    package static let maximumLength = 4_096
    /// How far `iat` and `nbf` may run ahead of this server's clock, in seconds.
    package static let clockSkewSeconds: Int64 = 60
    /// The longest lifetime a configuration may allow, in seconds (a day).
    package static let maximumLifetimeSeconds: Int64 = 86_400

    /// The keys by id.
    let keys: [String: P256.Signing.PublicKey]
    /// The audience every assertion must name.
    package let audience: String
    /// The longest `exp - iat` accepted, in seconds.
    package let maxLifetimeSeconds: Int64

    /// A verifier trusting `keys` (ids distinct: a later key of an id already given is ignored) for `audience`.
    /// The lifetime is held within 1 second and ``maximumLifetimeSeconds``.
    package init(keys: [AccountAssertionKey], audience: String, maxLifetimeSeconds: Int64) {
        self.keys = Dictionary(keys.map { ($0.id, $0.key) }, uniquingKeysWith: { first, _ in first })
        self.audience = audience
        self.maxLifetimeSeconds = min(Self.maximumLifetimeSeconds, max(1, maxLifetimeSeconds))
    }

    /// The account `token` proves at `now` (seconds since 1970), or the check it failed.
    package func verify(_ token: String, now: Int64) throws(AccountAssertionError) -> VerifiedAccountAssertion {
        guard token.utf8.count <= Self.maximumLength else {
            throw AccountAssertionError(.malformed, "the account assertion is longer than \(Self.maximumLength) bytes")
        }
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parsing: token)
        } catch {
            throw AccountAssertionError(.malformed, "the account assertion is not a JWS in compact serialization")
        }
        guard case .string("ES256")? = jws.header["alg"] else {
            throw AccountAssertionError(.algorithm, "the account assertion's alg must be ES256")
        }
        guard jws.header["crit"] == nil else {
            throw AccountAssertionError(.malformed, "the account assertion's header names critical extensions (crit)")
        }
        guard case .string(let keyId)? = jws.header["kid"], let key = keys[keyId] else {
            throw AccountAssertionError(.key, "the account assertion's kid names no configured key")
        }
        guard jws.signature.count == 64,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature),
            key.isValidSignature(signature, for: jws.signingInput)
        else {
            throw AccountAssertionError(.signature, "the account assertion's signature does not verify with the key its kid names")
        }
        guard let claims = JSONValue.parseObject(jws.payload) else {
            throw AccountAssertionError(.malformed, "the account assertion's payload is not a JSON object")
        }
        try checkAudience(claims["aud"])
        return VerifiedAccountAssertion(
            account: try Self.subject(claims["sub"]), keyId: keyId, expiresAt: try checkTimes(claims, now: now))
    }

    /// `aud` is the audience, or an array holding it (RFC 7519 §4.1.3).
    private func checkAudience(_ value: JSONValue?) throws(AccountAssertionError) {
        switch value {
        case .string(let named) where named == audience: return
        case .array(let names) where names.contains(.string(audience)): return
        default: throw AccountAssertionError(.audience, "the account assertion's aud is not this server's audience")
        }
    }

    /// Checks `exp`, `iat` and `nbf` against `now`; returns `exp`.
    private func checkTimes(_ claims: [String: JSONValue], now: Int64) throws(AccountAssertionError) -> Int64 {
        guard case .integer(let expires)? = claims["exp"] else {
            throw AccountAssertionError(.expired, "the account assertion has no exp in whole seconds")
        }
        guard expires > now else { throw AccountAssertionError(.expired, "the account assertion has expired") }
        guard case .integer(let issued)? = claims["iat"] else {
            throw AccountAssertionError(.issuedAt, "the account assertion has no iat in whole seconds")
        }
        let (latest, overflow) = now.addingReportingOverflow(Self.clockSkewSeconds)
        guard overflow || issued <= latest else {
            throw AccountAssertionError(.issuedAt, "the account assertion was issued in the future")
        }
        if let notBefore = claims["nbf"] {
            guard case .integer(let start) = notBefore, overflow || start <= latest else {
                throw AccountAssertionError(.issuedAt, "the account assertion is not valid yet (nbf)")
            }
        }
        let (lifetime, lifetimeOverflow) = expires.subtractingReportingOverflow(issued)
        guard !lifetimeOverflow, lifetime > 0, lifetime <= maxLifetimeSeconds else {
            throw AccountAssertionError(
                .lifetime, "the account assertion's lifetime (exp - iat) must be from 1 to \(maxLifetimeSeconds) seconds")
        }
        return expires
    }

    /// `sub`: a UUID in canonical lowercase form, as given.
    static func subject(_ value: JSONValue?) throws(AccountAssertionError) -> String {
        guard case .string(let text)? = value, text.utf8.count == 36, let uuid = UUID(uuidString: text),
            uuid.uuidString.lowercased() == text
        else {
            throw AccountAssertionError(.subject, "the account assertion's sub must be the account's UUID in lowercase")
        }
        return text
    }
}

/// An account assertion that passed every check.
package struct VerifiedAccountAssertion: Sendable, Equatable {
    /// The account: a UUID in canonical lowercase, the app account token its purchases carry.
    package let account: String
    /// The key that signed it.
    package let keyId: String
    /// When it expires, in seconds since 1970.
    package let expiresAt: Int64
}
