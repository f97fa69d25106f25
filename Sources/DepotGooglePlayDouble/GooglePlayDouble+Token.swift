import DepotTrust
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// The token endpoint and the access tokens it issues.
///
/// `POST /token` with the form `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=JWT` answers
/// `{"access_token", "expires_in": 3599, "token_type": "Bearer"}` for an assertion `GooglePlayDoubleAssertion`
/// accepts; the token is good for 3600 seconds by the double's clock. A refused assertion is 400
/// `{"error": "invalid_grant", "error_description"}`, another grant type 400 `unsupported_grant_type`.
extension GooglePlayDouble {
    /// The grant type of the JWT bearer flow.
    static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// How long an access token lasts, in milliseconds.
    static let accessTokenLifetime: Int64 = 3_600_000

    /// The answer to a token request with form `body`, and why it was refused, if it was.
    func grant(body: String) -> (Response, refusal: String?) {
        guard let form = GooglePlayDoubleForm.fields(body) else {
            return Self.oauthError("invalid_request", "the body is not application/x-www-form-urlencoded")
        }
        guard let grantType = form["grant_type"] else { return Self.oauthError("invalid_request", "grant_type is missing") }
        guard grantType == Self.jwtBearerGrantType else {
            return Self.oauthError("unsupported_grant_type", "Invalid grant_type: \(grantType)")
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            return Self.oauthError("invalid_request", "assertion is missing")
        }
        let now = clock()
        let tokenURI = state.withLockedValue { $0.tokenURI } ?? ""
        if let refusal = self.assertion.refusal(assertion, tokenURI: tokenURI, now: now) {
            return Self.oauthError("invalid_grant", refusal)
        }
        let token = "ya29.double-" + Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        state.withLockedValue { state in
            state.accessTokens = state.accessTokens.filter { $0.value > now }
            state.accessTokens[token] = now + Self.accessTokenLifetime
        }
        let answer = Self.object([
            ("access_token", GooglePlayDoubleSetup.quoted(token)), ("expires_in", "3599"), ("token_type", #""Bearer""#),
        ])
        return (Self.json(.ok, answer), nil)
    }

    /// Why the access token in an `Authorization` field is refused, or nil when the double issued it and it
    /// has not expired.
    func accessRefusal(authorization: String?) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "no Bearer token" }
        let token = String(authorization.dropFirst("Bearer ".count))
        guard let expiry = state.withLockedValue({ $0.accessTokens[token] }) else { return "not an access token the double issued" }
        guard expiry > clock() else { return "the access token has expired" }
        return nil
    }

    /// An OAuth 2.0 error answer (400) with its description, and the description as the refusal.
    private static func oauthError(_ error: String, _ description: String) -> (Response, refusal: String?) {
        let body = object([
            ("error", GooglePlayDoubleSetup.quoted(error)), ("error_description", GooglePlayDoubleSetup.quoted(description)),
        ])
        return (json(.badRequest, body), description)
    }
}
