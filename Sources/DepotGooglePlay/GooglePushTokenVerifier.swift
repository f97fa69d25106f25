import DepotOutboundHTTP
import AsyncHTTPClient
import Crypto
import CryptoExtras
import DepotTrust
import Foundation
import NIOCore
import NIOHTTP1

/// Checks the OIDC token Pub/Sub puts in `Authorization: Bearer` of an authenticated push: an RS256 JWT signed by
/// one of Google's keys (fetched from `certificatesURL`, Google's JWKS, kept until an unknown key id asks for a
/// fresh copy, at most once a minute), issued by `accounts.google.com`, for `audience`, not expired, and, when
/// `serviceAccountEmail` is given, for that verified account.
public actor GooglePushTokenVerifier {
    /// Google's signing keys for OIDC tokens.
    public static let googleCertificatesURL = "https://www.googleapis.com/oauth2/v3/certs"

    /// Why a push token is refused.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not a compact JWS Depot can read, or not RS256.
        case malformed(String)
        /// Signed by no key Google publishes.
        case unknownKey
        /// The signature does not verify.
        case badSignature
        /// A claim does not hold (issuer, audience, times, account).
        case claim(String)
        /// Google's keys could not be fetched (the push is answered 503, and Pub/Sub delivers it again).
        case certificatesUnavailable(String)

        /// The refusal for people.
        public var description: String {
            switch self {
            case .malformed(let why): "the push token is malformed: \(why)"
            case .unknownKey: "the push token is signed by no key Google publishes"
            case .badSignature: "the push token's signature does not verify"
            case .claim(let why): "the push token's \(why)"
            case .certificatesUnavailable(let why): "Google's signing keys could not be fetched: \(why)"
            }
        }
    }

    private let audience: String
    private let serviceAccountEmail: String?
    private let certificatesURL: String
    private let http: HTTPClient
    private var keys: [String: _RSA.Signing.PublicKey] = [:]
    private var lastFetch: Int64?

    /// A verifier for pushes to `audience` (the push endpoint's audience as configured in Pub/Sub).
    public init(
        audience: String, serviceAccountEmail: String?, certificatesURL: String = GooglePushTokenVerifier.googleCertificatesURL,
        http: HTTPClient = OutboundHTTP.client
    ) {
        self.audience = audience
        self.serviceAccountEmail = serviceAccountEmail
        self.certificatesURL = certificatesURL
        self.http = http
    }

    /// Checks `token` at `now` (seconds since 1970).
    public func verify(_ token: String, now: Int64) async throws(Refusal) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 16 * 1024, parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let payloadBytes = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2])
        else { throw .malformed("not three base64url parts") }
        struct Header: Decodable {
            var alg: String?
            var kid: String?
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else {
            throw .malformed("the header is not JSON")
        }
        guard header.alg == "RS256", let kid = header.kid, !kid.isEmpty else { throw .malformed("not RS256 with a key id") }
        guard let key = try await key(kid, now: now) else { throw .unknownKey }
        let input = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        guard
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
        else { throw .badSignature }
        try check(payloadBytes, now: now)
    }

    /// The claims: issuer, audience, times (a minute's leeway), and the account.
    private func check(_ payload: [UInt8], now: Int64) throws(Refusal) {
        struct Claims: Decodable {
            var iss: String?
            var aud: String?
            var exp: Double?
            var iat: Double?
            var email: String?
            var email_verified: Bool?
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(payload)) else {
            throw .malformed("the claims are not JSON")
        }
        guard claims.iss == "https://accounts.google.com" || claims.iss == "accounts.google.com" else {
            throw .claim("issuer is not Google")
        }
        guard claims.aud == audience else { throw .claim("audience is not this endpoint's") }
        // Compared as doubles: a huge or negative number cannot trap.
        guard let exp = claims.exp, exp + 60 > Double(now) else { throw .claim("expiry has passed") }
        if let iat = claims.iat, iat > Double(now) + 60 { throw .claim("issue time is in the future") }
        if let email = serviceAccountEmail {
            guard claims.email == email, claims.email_verified == true else { throw .claim("account is not the configured one") }
        }
    }

    /// The key named `kid`, fetching Google's keys again when it is unknown (at most once a minute).
    private func key(_ kid: String, now: Int64) async throws(Refusal) -> _RSA.Signing.PublicKey? {
        if let key = keys[kid] { return key }
        if let lastFetch, now - lastFetch < 60 { return nil }
        lastFetch = now
        keys = try await fetchKeys()
        return keys[kid]
    }

    private func fetchKeys() async throws(Refusal) -> [String: _RSA.Signing.PublicKey] {
        struct JWKS: Decodable {
            struct Key: Decodable {
                var kid: String?
                var kty: String?
                var n: String?
                var e: String?
            }
            var keys: [Key]
        }
        let data: Data
        do {
            let response = try await http.execute(HTTPClientRequest(url: certificatesURL), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 20)
            guard response.status.code == 200 else { throw Refusal.certificatesUnavailable("status \(response.status.code)") }
            data = Data(body.readableBytesView)
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw .certificatesUnavailable("\(error)")
        }
        guard let jwks = try? JSONDecoder().decode(JWKS.self, from: data) else { throw .certificatesUnavailable("not a JWKS") }
        var found: [String: _RSA.Signing.PublicKey] = [:]
        for key in jwks.keys where key.kty == "RSA" {
            guard let kid = key.kid, let n = key.n.flatMap(Base64URL.decode), let e = key.e.flatMap(Base64URL.decode),
                let publicKey = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { continue }
            found[kid] = publicKey
        }
        return found
    }
}
