import DepotOutboundHTTP
import AsyncHTTPClient
import CryptoExtras
import DepotTrust
import Foundation
import NIOCore
import NIOHTTP1

/// Access tokens for the Developer API by Google's OAuth 2.0 service-account flow: an RS256-signed JWT
/// (`iss` the account, `scope` androidpublisher, `aud` the token endpoint, an hour's lifetime) exchanged at the
/// token endpoint (`grant_type` jwt-bearer) for a bearer token, reused until shortly before it expires.
public actor GooglePlayAccessTokens {
    /// The scope the Developer API requires.
    public static let scope = "https://www.googleapis.com/auth/androidpublisher"
    /// A token is renewed this many seconds before it expires.
    static let renewalMarginSeconds: Int64 = 300

    private let account: GooglePlayServiceAccount
    private let tokenURL: String
    private let key: _RSA.Signing.PrivateKey
    private let http: HTTPClient
    private let timeout: TimeAmount
    private var current: (token: String, expiresAt: Int64)?

    /// Tokens for `account`, asked of `tokenURL` (the key file's `token_uri` when nil).
    public init(
        account: GooglePlayServiceAccount, tokenURL: String? = nil, http: HTTPClient = OutboundHTTP.client, timeoutSeconds: Int64 = 30
    )
        throws(GooglePlayAPIError)
    {
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: account.privateKeyPEM)
        } catch {
            throw GooglePlayAPIError(.configuration("the service account's private_key is not an RSA key of 2048 bits or more"))
        }
        self.account = account
        self.tokenURL = tokenURL ?? account.tokenURI
        self.http = http
        self.timeout = .seconds(max(1, timeoutSeconds))
    }

    /// A bearer token valid at `now` (seconds since 1970) for at least the renewal margin.
    public func token(now: Int64) async throws(GooglePlayAPIError) -> String {
        if let current, current.expiresAt - Self.renewalMarginSeconds > now { return current.token }
        let assertion = try signedAssertion(now: now)
        let (token, lifetime) = try await exchange(assertion)
        current = (token, now + lifetime)
        return token
    }

    /// Forgets the cached token (after the API refused it), so the next call asks for a new one.
    public func forget() { current = nil }

    /// The JWT that asks for a token: RS256 over `header.claims`.
    func signedAssertion(now: Int64) throws(GooglePlayAPIError) -> String {
        struct Header: Encodable {
            var alg = "RS256"
            var typ = "JWT"
            var kid: String
        }
        struct Claims: Encodable {
            var iss: String
            var scope: String
            var aud: String
            var iat: Int64
            var exp: Int64
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let header = try encoder.encode(Header(kid: account.privateKeyId))
            let claims = try encoder.encode(Claims(iss: account.clientEmail, scope: Self.scope, aud: tokenURL, iat: now, exp: now + 3600))
            let input = Base64URL.encode(Array(header)) + "." + Base64URL.encode(Array(claims))
            let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
            return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
        } catch {
            throw GooglePlayAPIError(.configuration("cannot sign the token request: \(error)"))
        }
    }

    private func exchange(_ assertion: String) async throws(GooglePlayAPIError) -> (String, Int64) {
        var request = HTTPClientRequest(url: tokenURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Depot")
        // The assertion is base64url and dots: nothing in it needs percent-encoding.
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        request.body = .bytes(ByteBuffer(string: form))
        let (status, data, retryAfter) = try await GooglePlayHTTP.execute(request, http: http, timeout: timeout)
        guard (200...299).contains(status) else {
            struct OAuthError: Decodable {
                var error: String?
                var error_description: String?
            }
            let decoded = try? JSONDecoder().decode(OAuthError.self, from: data)
            throw GooglePlayAPIError(
                .google(status: status, reason: decoded?.error, message: decoded?.error_description), retryAfter: retryAfter)
        }
        struct Answer: Decodable {
            var access_token: String
            var expires_in: Int64?
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data), !answer.access_token.isEmpty else {
            throw GooglePlayAPIError(.google(status: status, reason: nil, message: "a token answer without access_token"))
        }
        // Bounded: a wild expires_in can neither overflow nor keep a token for ever.
        let lifetime = min(max(answer.expires_in ?? 3600, 0), 24 * 3600)
        return (answer.access_token, lifetime)
    }
}
