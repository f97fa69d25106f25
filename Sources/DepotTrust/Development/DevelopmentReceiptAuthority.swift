import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import X509

/// A development stand-in for Apple's receipt-signing chain (RSA, as Apple's is), so the StoreKit 1 flow runs
/// without Apple.
///
/// It holds a self-signed RSA root, an intermediate carrying Apple's WWDR marker extension, a leaf carrying the
/// receipt-signing marker, all valid from 2020-01-01 to 2040-01-01, and the leaf's key. ``sign(payload:)``
/// wraps a receipt payload in CMS SignedData exactly as Apple does (SHA-256, RSA PKCS #1 v1.5, no signed
/// attributes, the three certificates embedded), so an ``AppReceiptVerifier`` trusting ``rootDER`` accepts it
/// and one that does not refuses it with `chain-untrusted`.
package struct DevelopmentReceiptAuthority: Sendable {
    /// The root certificate, DER: what a receipt verifier must be configured to trust.
    package let rootDER: [UInt8]
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate
    let leafKey: _RSA.Signing.PrivateKey

    /// Assembles an authority from its certificates and the leaf's key, checking that they fit together.
    init(
        root: Certificate, intermediate: Certificate, leaf: Certificate, leafKey: _RSA.Signing.PrivateKey
    ) throws(DevelopmentAuthorityError) {
        guard Certificate.PublicKey(leafKey.publicKey) == leaf.publicKey else {
            throw DevelopmentAuthorityError(.filesInvalid, "receipt leaf-key.pem is not the key of leaf.pem")
        }
        guard intermediate.publicKey.isValidSignature(leaf.signature, for: leaf),
            root.publicKey.isValidSignature(intermediate.signature, for: intermediate)
        else {
            throw DevelopmentAuthorityError(.filesInvalid, "the receipt root.pem, intermediate.pem and leaf.pem are not one chain")
        }
        do {
            var serializer = DER.Serializer()
            try serializer.serialize(root)
            rootDER = serializer.serializedBytes
        } catch {
            throw DevelopmentAuthorityError(.signingFailed, "the development receipt root could not be encoded")
        }
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.leafKey = leafKey
    }

    /// Signs `payload` (the DER of a receipt's attribute set) as Apple signs receipts: the DER of a CMS
    /// `ContentInfo` holding SignedData, ready to be sent in base64.
    package func sign(payload: [UInt8]) throws(DevelopmentAuthorityError) -> [UInt8] {
        try sign(payload: payload, embedding: [leaf, intermediate, root])
    }

    /// Signs `payload` as ``sign(payload:)`` does, embedding `certificates` (the leaf, whose key signs, among them or
    /// not) instead of the chain: for tests of what a receipt's certificate set may hold.
    package func sign(payload: [UInt8], embedding certificates: [Certificate]) throws(DevelopmentAuthorityError) -> [UInt8] {
        let embedded = certificates
        do {
            let signature = try leafKey.signature(for: SHA256.hash(data: payload), padding: .insecurePKCS1v1_5)
            var serializer = DER.Serializer()
            try serializer.appendConstructedNode(identifier: .sequence) { contentInfo in
                try contentInfo.serialize(ReceiptOID.signedData)
                try contentInfo.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { tagged in
                    try tagged.appendConstructedNode(identifier: .sequence) { signedData in
                        try signedData.serialize(1)
                        try signedData.appendConstructedNode(identifier: .set) { set in try Self.algorithm(ReceiptOID.sha256, into: &set) }
                        try signedData.appendConstructedNode(identifier: .sequence) { content in
                            try content.serialize(ReceiptOID.data)
                            try content.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { octets in
                                try octets.serialize(ASN1OctetString(contentBytes: payload[...]))
                            }
                        }
                        try signedData.appendConstructedNode(
                            identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
                        ) { set in
                            for certificate in embedded { try set.serialize(certificate) }
                        }
                        try signedData.appendConstructedNode(identifier: .set) { signers in
                            try signers.appendConstructedNode(identifier: .sequence) { signer in
                                try signer.serialize(1)
                                try signer.appendConstructedNode(identifier: .sequence) { sid in
                                    try sid.serialize(leaf.issuer)
                                    try sid.serialize(ArraySlice(leaf.serialNumber.bytes))
                                }
                                try Self.algorithm(ReceiptOID.sha256, into: &signer)
                                try Self.algorithm(ReceiptOID.rsaEncryption, into: &signer)
                                try signer.serialize(ASN1OctetString(contentBytes: ArraySlice(signature.rawRepresentation)))
                            }
                        }
                    }
                }
            }
            return serializer.serializedBytes
        } catch {
            throw DevelopmentAuthorityError(.signingFailed, "the receipt could not be signed")
        }
    }

    /// An `AlgorithmIdentifier` with NULL parameters.
    private static func algorithm(_ oid: ASN1ObjectIdentifier, into serializer: inout DER.Serializer) throws {
        try serializer.appendConstructedNode(identifier: .sequence) { algorithm in
            try algorithm.serialize(oid)
            try algorithm.serialize(ASN1Null())
        }
    }
}
