import CryptoExtras
import Foundation

/// Signs Google Play purchase data as Google Play does (RSASSA-PKCS1-v1_5 over SHA-1), with a key made for the
/// test: the cases the one genuine purchase cannot give (other states, products, packages, order ids).
public struct GooglePlayTestSigner: Sendable {
    /// The private key.
    let key: _RSA.Signing.PrivateKey

    /// A signer with a new 2,048-bit key.
    public init() throws {
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// The public key as Play Console shows it: base64 of its X.509 SubjectPublicKeyInfo.
    public var publicKeyBase64: String { key.publicKey.derRepresentation.base64EncodedString() }

    /// The signature over `purchaseData`'s UTF-8 bytes, in standard base64.
    public func sign(_ purchaseData: String) throws -> String {
        let signature = try key.signature(for: Insecure.SHA1.hash(data: Array(purchaseData.utf8)), padding: .insecurePKCS1v1_5)
        return signature.rawRepresentation.base64EncodedString()
    }

    /// Purchase data in Play Billing's compact form, with the given fields (`extra` appended as raw JSON members).
    public static func purchaseData(
        orderId: String? = "GPA.3301-2458-1199-40721", packageName: String = "com.example.depot.test",
        productId: String = "level1", purchaseTime: Int64 = 1_772_355_600_000, purchaseState: Int = 0,
        purchaseToken: String = "token-\(UUID().uuidString.lowercased())", quantity: Int = 1, extra: String = ""
    ) -> String {
        var members: [String] = []
        if let orderId { members.append("\"orderId\":\"\(orderId)\"") }
        members.append("\"packageName\":\"\(packageName)\"")
        members.append("\"productId\":\"\(productId)\"")
        members.append("\"purchaseTime\":\(purchaseTime)")
        members.append("\"purchaseState\":\(purchaseState)")
        members.append("\"purchaseToken\":\"\(purchaseToken)\"")
        members.append("\"quantity\":\(quantity)")
        members.append("\"acknowledged\":false")
        if !extra.isEmpty { members.append(extra) }
        return "{" + members.joined(separator: ",") + "}"
    }
}
