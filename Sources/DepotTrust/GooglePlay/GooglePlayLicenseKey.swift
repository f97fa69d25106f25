import CryptoExtras
import Foundation

/// An app's licensing public key, as Play Console shows it (Monetization setup → Licensing): base64 of an
/// X.509 SubjectPublicKeyInfo holding an RSA key of at least 2,048 bits.
package struct GooglePlayLicenseKey: Sendable {
    /// The key.
    let key: _RSA.Signing.PublicKey

    /// Reads the key from Play Console's base64 text; surrounding white space and line breaks are ignored.
    package init(base64 text: String) throws(LicenseKeyError) {
        let compact = text.filter { !$0.isWhitespace }
        guard let der = Data(base64Encoded: compact), !der.isEmpty else {
            throw LicenseKeyError("is not base64 (copy it from Play Console: Monetization setup, Licensing)")
        }
        do {
            key = try _RSA.Signing.PublicKey(derRepresentation: der)
        } catch {
            throw LicenseKeyError("is not an RSA public key of at least 2048 bits in X.509 SubjectPublicKeyInfo form")
        }
    }

    /// Whether `signature` is this key's RSASSA-PKCS1-v1_5 signature over the SHA-1 of `data`, as Google Play
    /// signs purchase data.
    func verifies(_ signature: [UInt8], over data: [UInt8]) -> Bool {
        key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: Insecure.SHA1.hash(data: data),
            padding: .insecurePKCS1v1_5)
    }

    /// The size of this key's signatures, in bytes.
    var signatureLength: Int { (key.keySizeInBits + 7) / 8 }
}

/// Why a configured licensing key could not be read: the end of a sentence that names the setting.
package struct LicenseKeyError: Error, Sendable, Equatable {
    /// What is wrong.
    package var reason: String

    init(_ reason: String) { self.reason = reason }
}
