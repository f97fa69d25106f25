import Crypto
import CryptoExtras
import DepotTrust
import Foundation

/// The double's check of the JWT a service account sends to the token endpoint (OAuth 2.0 JWT bearer grant, as
/// Google's "Using OAuth 2.0 for Server to Server Applications" describes it): compact JWS with header `alg`
/// RS256, `typ` JWT and `kid` the account's key id; an RSASSA-PKCS1-v1_5 SHA-256 signature that verifies with
/// the account's public key; claims `iss` the account's email, `scope` a space-separated list holding the
/// Android Publisher scope, `aud` the token URI (with or without a trailing slash) or Google's own token endpoint
/// (which Google's auth libraries sign for whatever the key file's `token_uri`, and Google accepts), `exp` after
/// now, `iat` not more than a minute ahead of now, and `exp` no more than an hour after `iat`.
package struct GooglePlayDoubleAssertion: Sendable {
    /// The scope an assertion must ask for.
    package static let scope = "https://www.googleapis.com/auth/androidpublisher"
    /// Google's token endpoint, an audience Google accepts besides the key file's `token_uri`.
    package static let googleTokenURI = "https://oauth2.googleapis.com/token"
    /// Seconds an assertion's `iat` may lie ahead of the double's clock (clocks are never exactly equal).
    static let clockSkewSeconds = 60.0

    /// The key id assertions must name.
    package var privateKeyId: String
    /// The email assertions must be issued by.
    package var clientEmail: String
    /// The public half of the account's key.
    package var publicKey: _RSA.Signing.PublicKey

    /// Creates a checker.
    package init(privateKeyId: String, clientEmail: String, publicKey: _RSA.Signing.PublicKey) {
        self.privateKeyId = privateKeyId
        self.clientEmail = clientEmail
        self.publicKey = publicKey
    }

    /// A checker for assertions signed with the double's service account.
    package init(serviceAccount: GooglePlayDoubleServiceAccount) {
        self.init(
            privateKeyId: serviceAccount.privateKeyId, clientEmail: GooglePlayDoubleServiceAccount.clientEmail,
            publicKey: serviceAccount.privateKey.publicKey)
    }

    /// Why `assertion` is refused, or nil when it is good for `tokenURI` at `now` (milliseconds since 1970).
    package func refusal(_ assertion: String, tokenURI: String, now: Int64) -> String? {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return "the assertion is not a compact JWS" }
        guard let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
            let signatureBytes = Base64URL.decode(parts[2])
        else { return "the assertion is not base64url" }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else { return "unreadable JWT header" }
        guard header.alg == "RS256" else { return "alg is not RS256" }
        guard header.typ == "JWT" else { return "typ is not JWT" }
        guard header.kid == privateKeyId else { return "kid is not the service account's private_key_id" }
        let signed = SHA256.hash(data: Array((parts[0] + "." + parts[1]).utf8))
        guard
            publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signatureBytes), for: signed, padding: .insecurePKCS1v1_5)
        else { return "Invalid JWT Signature." }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimBytes)) else {
            return "unreadable JWT claims (iss, scope and aud must be strings, iat and exp numbers)"
        }
        guard claims.iss == clientEmail else { return "iss is not the service account's client_email" }
        guard let scope = claims.scope, scope.split(separator: " ").contains(Substring(Self.scope)) else {
            return "scope does not include \(Self.scope)"
        }
        guard let aud = claims.aud, [tokenURI, tokenURI + "/", Self.googleTokenURI].contains(aud) else {
            return "aud is neither the token URI \(tokenURI) nor \(Self.googleTokenURI)"
        }
        guard let iat = claims.iat, let exp = claims.exp else { return "iat or exp is missing" }
        let seconds = Double(now) / 1000
        guard exp > seconds else { return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe." }
        guard iat <= seconds + Self.clockSkewSeconds else { return "iat is in the future" }
        guard exp - iat <= 3600 else { return "exp is more than 3600 seconds after iat" }
        return nil
    }

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
        var typ: String?
    }

    private struct Claims: Decodable {
        var iss: String?
        var scope: String?
        var aud: String?
        var iat: Double?
        var exp: Double?
    }
}
