import SwiftASN1
import X509

/// A CMS `SignerInfo` as receipts write it: version 1, issuer and serial number, a digest algorithm, no signed
/// attributes, an RSA signature algorithm, the signature, no unsigned attributes.
struct ReceiptSigner {
    /// The issuer of the signer's certificate.
    let issuer: DistinguishedName
    /// The serial number of the signer's certificate.
    let serialNumber: Certificate.SerialNumber
    /// The digest algorithm.
    let digest: ReceiptDigest
    /// The signature bytes.
    let signature: [UInt8]

    /// The most bytes a signature may have (a 16,384-bit RSA key signs in 2,048).
    static let maximumSignatureLength = 2_048

    init(node: ASN1Node) throws {
        (issuer, serialNumber, digest, signature) = try BER.sequence(node, identifier: .sequence) { nodes in
            let version = try Int(berEncoded: &nodes)
            guard version == 1 else {
                throw ReceiptFormatError("its signer is not named by issuer and serial number", unsupported: true)
            }
            guard let sid = nodes.next() else { throw ReceiptFormatError("its signer has no identifier") }
            let (issuer, serial) = try BER.sequence(sid, identifier: .sequence) { parts in
                guard let name = parts.next() else { throw ReceiptFormatError("its signer has no issuer") }
                let issuer = try DistinguishedName(derEncoded: name)
                let serial = try ArraySlice<UInt8>(derEncoded: &parts)
                return (issuer, Certificate.SerialNumber(bytes: serial))
            }
            let digest = try ReceiptAlgorithm(berEncoded: &nodes).digest()
            if let next = nodes.peekIdentifier(), next == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
                throw ReceiptFormatError("its signer has signed attributes, which receipts never carry", unsupported: true)
            }
            let signatureAlgorithm = try ReceiptAlgorithm(berEncoded: &nodes)
            try signatureAlgorithm.checkRSASignature(with: digest)
            let signature = try ASN1OctetString(berEncoded: &nodes)
            guard !signature.bytes.isEmpty, signature.bytes.count <= Self.maximumSignatureLength else {
                throw ReceiptFormatError("its signature has an impossible length")
            }
            guard nodes.peekIdentifier() == nil else {
                throw ReceiptFormatError("its signer has unsigned attributes, which receipts never carry")
            }
            return (issuer, serial, digest, Array(signature.bytes))
        }
    }
}

extension ASN1NodeCollection.Iterator {
    /// The identifier of the next node, without consuming it.
    fileprivate func peekIdentifier() -> ASN1Identifier? {
        var copy = self
        return copy.next()?.identifier
    }
}
