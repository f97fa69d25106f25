import Crypto
import DepotTrust
import Foundation

/// The double's check of an App Store Server API token, independent of the client that signs it: compact JWS
/// with header `alg` ES256, `kid` the double's key id, `typ` JWT; an ES256 signature that verifies with the
/// double's public key; claims `iss` the issuer id, `aud` `appstoreconnect-v1`, `bid` the bundle id, `exp` after
/// now and no more than 3600 seconds after `iat` (Apple's "Generating JSON Web Tokens for API requests").
/// `iat` is checked only when present (not in the future), as Apple does: its own App Store Server Library
/// sends none. A token without it may end no more than 3600 seconds after now.
package struct AppStoreDoubleToken: Sendable {
    /// The key id tokens must name.
    package var keyId: String
    /// The issuer id tokens must carry.
    package var issuerId: String
    /// The bundle id tokens must carry.
    package var bundleId: String
    /// The public half of the API key the double made.
    package var publicKey: P256.Signing.PublicKey

    /// Seconds a token's `iat` may lie ahead of the double's clock (clocks are never exactly equal).
    static let clockSkewSeconds: Int64 = 60

    /// Creates a checker.
    package init(keyId: String, issuerId: String, bundleId: String, publicKey: P256.Signing.PublicKey) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.publicKey = publicKey
    }

    /// A checker for tokens signed with the double's own key.
    package init(key: AppStoreDoubleKey, bundleId: String) {
        self.init(keyId: key.keyId, issuerId: key.issuerId, bundleId: bundleId, publicKey: key.privateKey.publicKey)
    }

    /// Why the token in an `Authorization` field is refused, or nil when it is good at `now` (seconds since 1970).
    package func refusal(authorization: String?, now: Int64) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "no Bearer token" }
        let parts = authorization.dropFirst("Bearer ".count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return "not a compact JWS" }
        guard let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
            let signatureBytes = Base64URL.decode(parts[2])
        else { return "not base64url" }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else { return "unreadable header" }
        guard header.alg == "ES256" else { return "alg is not ES256" }
        guard header.typ == "JWT" else { return "typ is not JWT" }
        guard header.kid == keyId else { return "kid is not the key this double issued" }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
        else { return "signature does not verify with the double's key" }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimBytes)) else { return "unreadable claims" }
        guard claims.iss == issuerId else { return "iss is not the issuer id" }
        guard claims.aud == "appstoreconnect-v1" else { return "aud is not appstoreconnect-v1" }
        guard claims.bid == bundleId else { return "bid is not \(bundleId)" }
        guard claims.exp > now else { return "expired" }
        if let iat = claims.iat {
            guard iat <= now + Self.clockSkewSeconds else { return "iat is in the future" }
            let (lifetime, overflow) = claims.exp.subtractingReportingOverflow(iat)
            guard !overflow, lifetime <= 3600 else { return "exp is more than 60 minutes after iat" }
        } else {
            let (left, overflow) = claims.exp.subtractingReportingOverflow(now)
            guard !overflow, left <= 3600 + Self.clockSkewSeconds else { return "exp is more than 60 minutes from now" }
        }
        return nil
    }

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
        var typ: String?
    }

    private struct Claims: Decodable {
        var iss: String?
        var iat: Int64?
        var exp: Int64
        var aud: String?
        var bid: String?
    }
}
