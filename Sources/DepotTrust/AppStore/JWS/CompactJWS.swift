import Crypto
import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1): `BASE64URL(header).BASE64URL(payload).BASE64URL(signature)`.
///
/// Parsing only splits and decodes; what the header says is judged by the caller.
struct CompactJWS {
    /// Longest token accepted: App Store notifications carry two nested JWS and stay well under this.
    static let maximumLength = 256 * 1024

    /// The decoded JOSE header.
    let header: [String: JSONValue]
    /// The decoded payload bytes, not yet parsed.
    let payload: [UInt8]
    /// The decoded signature bytes.
    let signature: [UInt8]
    /// The ASCII bytes the signature covers: `header.payload` as they appear in the token (RFC 7515 §5.2).
    let signingInput: [UInt8]

    /// Splits and decodes a token.
    init(parsing token: String) throws(AppStoreVerificationError) {
        guard token.utf8.count <= Self.maximumLength else {
            throw AppStoreVerificationError(.jwsMalformed, "the signed data is too long")
        }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw AppStoreVerificationError(.jwsMalformed, "the signed data is not a JWS in compact serialization")
        }
        guard let headerBytes = Base64URL.decode(Substring(parts[0])),
            let payload = Base64URL.decode(Substring(parts[1])),
            let signature = Base64URL.decode(Substring(parts[2]))
        else {
            throw AppStoreVerificationError(.jwsMalformed, "a part of the JWS is not base64url")
        }
        guard let header = JSONValue.parseObject(headerBytes) else {
            throw AppStoreVerificationError(.jwsMalformed, "the JWS header is not a JSON object")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(token.utf8[..<parts[1].endIndex])
    }

    /// Makes an ES256 token: the header and payload as compact JSON, signed as RFC 7518 §3.4 says (raw r||s).
    static func signES256(
        header: [String: JSONValue], payload: [String: JSONValue], key: P256.Signing.PrivateKey
    ) throws -> String {
        let signingInput =
            Base64URL.encode(try JSONValue.encodeObject(header)) + "."
            + Base64URL.encode(try JSONValue.encodeObject(payload))
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }
}
