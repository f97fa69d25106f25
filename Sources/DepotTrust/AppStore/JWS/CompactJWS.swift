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
        var token = token
        let parts = token.withUTF8 { bytes -> Result<CompactJWS, AppStoreVerificationError> in
            Result { () throws(AppStoreVerificationError) in try CompactJWS(bytes: bytes) }
        }
        self = try parts.get()
    }

    /// Splits and decodes a token's bytes: two dots, three base64url parts, the first a JSON object.
    private init(bytes: UnsafeBufferPointer<UInt8>) throws(AppStoreVerificationError) {
        let dot = UInt8(ascii: ".")
        guard let first = bytes.firstIndex(of: dot),
            let second = bytes[(first + 1)...].firstIndex(of: dot),
            !bytes[(second + 1)...].contains(dot)
        else {
            throw AppStoreVerificationError(.jwsMalformed, "the signed data is not a JWS in compact serialization")
        }
        guard let headerBytes = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[..<first])),
            let payload = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second])),
            let signature = Base64URL.decode(bytes: UnsafeBufferPointer(rebasing: bytes[(second + 1)...]))
        else {
            throw AppStoreVerificationError(.jwsMalformed, "a part of the JWS is not base64url")
        }
        guard let header = JSONValue.parseObject(headerBytes) else {
            throw AppStoreVerificationError(.jwsMalformed, "the JWS header is not a JSON object")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(UnsafeBufferPointer(rebasing: bytes[..<second]))
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
