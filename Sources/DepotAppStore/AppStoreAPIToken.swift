import Crypto
import DepotTrust
import Foundation

/// Signs the JSON Web Tokens the App Store Server API requires (Apple's "Generating JSON Web Tokens for
/// API requests"): ES256 with the in-app purchase key from App Store Connect, header `alg`, `kid`, `typ`,
/// claims `iss`, `iat`, `exp` (at most 60 minutes later), `aud` `appstoreconnect-v1` and `bid`.
///
/// A token is reused until shortly before it expires, so most calls sign nothing.
public actor AppStoreAPITokenSigner {
    private let keyId: String
    private let issuerId: String
    private let bundleId: String
    private let key: P256.Signing.PrivateKey
    private let lifetimeSeconds: Int64
    private var current: (token: String, expiresAt: Int64)?

    /// Renews a token this many seconds before it expires.
    static let renewalMarginSeconds: Int64 = 300

    /// A signer for the key in `privateKeyPEM` (the `.p8` file's PKCS#8 PEM text).
    public init(
        keyId: String, issuerId: String, bundleId: String, privateKeyPEM: String, lifetimeSeconds: Int64 = 1800
    )
        throws(AppStoreAPIError)
    {
        guard !keyId.isEmpty, !issuerId.isEmpty, !bundleId.isEmpty else {
            throw AppStoreAPIError(.configuration("keyId, issuerId and bundleId are all required"))
        }
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw AppStoreAPIError(.configuration("the private key is not an ES256 (P-256) key in PEM form"))
        }
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.lifetimeSeconds = min(3600, max(Self.renewalMarginSeconds * 2, lifetimeSeconds))
    }

    /// A token valid at `now` (seconds since 1970) for at least the renewal margin.
    public func token(now: Int64) throws(AppStoreAPIError) -> String {
        if let current, current.expiresAt - Self.renewalMarginSeconds > now, current.expiresAt - lifetimeSeconds <= now {
            return current.token
        }
        let header: [String: String] = ["alg": "ES256", "kid": keyId, "typ": "JWT"]
        let claims = Claims(iss: issuerId, iat: now, exp: now + lifetimeSeconds, aud: "appstoreconnect-v1", bid: bundleId)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let signingInput: String
        let signature: P256.Signing.ECDSASignature
        do {
            signingInput = Base64URL.encode(Array(try encoder.encode(header))) + "." + Base64URL.encode(Array(try encoder.encode(claims)))
            signature = try key.signature(for: Data(signingInput.utf8))
        } catch {
            throw AppStoreAPIError(.configuration("cannot sign a token: \(error)"))
        }
        let token = signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
        current = (token, now + lifetimeSeconds)
        return token
    }

    private struct Claims: Encodable {
        var iss: String
        var iat: Int64
        var exp: Int64
        var aud: String
        var bid: String
    }
}
