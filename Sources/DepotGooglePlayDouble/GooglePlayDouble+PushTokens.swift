import CryptoExtras
import DepotTrust
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Pub/Sub's authenticated push, played by the double: `GET /oauth2/v3/certs` publishes the key it signs OIDC
/// tokens with (a JWKS, as Google's), and `POST /_double/push-token` `{"audience", "email", "expiresIn"}` signs one
/// (RS256, issuer `https://accounts.google.com`, `email_verified` true) for a test to push with. The service
/// account's key stands in for Google's signing key, under the key id `double-oidc`.
extension GooglePlayDouble {
    /// The key id of the double's OIDC signing key.
    static let oidcKeyId = "double-oidc"

    /// The JWKS answer.
    func certificates() -> Response {
        guard let primitives = try? serviceAccount.privateKey.publicKey.getKeyPrimitives() else {
            return Self.googleError(.internalServerError, "no key", status: "INTERNAL")
        }
        let n = Base64URL.encode(Array(primitives.modulus)), e = Base64URL.encode(Array(primitives.publicExponent))
        let body = #"{"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "\#(Self.oidcKeyId)", "n": "\#(n)", "e": "\#(e)"}]}"#
        return Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// A signed OIDC token for `audience` and `email`, valid `expiresIn` seconds (negative: already expired).
    package func pushToken(audience: String, email: String, expiresIn: Int64 = 3600) -> String? {
        let now = clock() / 1000
        let (exp, overflow) = now.addingReportingOverflow(expiresIn)
        guard !overflow else { return nil }
        let header = #"{"alg":"RS256","kid":"\#(Self.oidcKeyId)","typ":"JWT"}"#
        let claims = [
            "\"iss\":\"https://accounts.google.com\"", "\"aud\":\(GooglePlayDoubleSetup.quoted(audience))",
            "\"email\":\(GooglePlayDoubleSetup.quoted(email))", "\"email_verified\":true", "\"iat\":\(now)",
            // Overflow-checked: the lifetime comes from the request; an impossible one is refused.
            "\"exp\":\(exp)", "\"sub\":\"1\"",
        ]
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(("{" + claims.joined(separator: ",") + "}").utf8))
        guard let signature = try? serviceAccount.privateKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5) else {
            return nil
        }
        return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }
}
