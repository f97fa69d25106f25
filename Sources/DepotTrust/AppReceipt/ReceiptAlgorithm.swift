import SwiftASN1

/// The object identifiers a receipt's CMS envelope uses.
enum ReceiptOID {
    /// id-signedData (1.2.840.113549.1.7.2).
    static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    /// id-data (1.2.840.113549.1.7.1).
    static let data: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
    /// SHA-1 (1.3.14.3.2.26).
    static let sha1: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    /// SHA-256 (2.16.840.1.101.3.4.2.1).
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    /// rsaEncryption (1.2.840.113549.1.1.1): PKCS #1 v1.5 with the digest algorithm named beside it.
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]
    /// sha1WithRSAEncryption (1.2.840.113549.1.1.5).
    static let sha1WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 5]
    /// sha256WithRSAEncryption (1.2.840.113549.1.1.11), as Xcode writes.
    static let sha256WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 11]
}

/// The digest algorithms a receipt may be signed with.
package enum ReceiptDigest: String, Sendable, Equatable {
    /// SHA-1: receipts signed before 2023 (Apple's SHA-1 certificates).
    case sha1
    /// SHA-256: receipts signed under Apple WWDR G5 (from 2023), and Xcode's.
    case sha256
}

/// An `AlgorithmIdentifier ::= SEQUENCE { algorithm OID, parameters ANY OPTIONAL }` whose parameters, when
/// present, are NULL.
struct ReceiptAlgorithm: BERParseable {
    let algorithm: ASN1ObjectIdentifier

    init(derEncoded node: ASN1Node) throws {
        try self.init(berEncoded: node)
    }

    init(berEncoded node: ASN1Node) throws {
        algorithm = try BER.sequence(node, identifier: .sequence) { nodes in
            let algorithm = try ASN1ObjectIdentifier(berEncoded: &nodes)
            if let parameters = nodes.next() {
                guard parameters.identifier == .null, case .primitive(let bytes) = parameters.content, bytes.isEmpty else {
                    throw ReceiptFormatError("an algorithm has parameters other than NULL", unsupported: true)
                }
            }
            return algorithm
        }
    }

    /// The digest this names, or a refusal as unsupported.
    func digest() throws(ReceiptFormatError) -> ReceiptDigest {
        switch algorithm {
        case ReceiptOID.sha1: return .sha1
        case ReceiptOID.sha256: return .sha256
        default: throw ReceiptFormatError("is signed with a digest algorithm other than SHA-1 or SHA-256", unsupported: true)
        }
    }

    /// Checks this is RSA PKCS #1 v1.5, plain or naming `digest`.
    func checkRSASignature(with digest: ReceiptDigest) throws(ReceiptFormatError) {
        switch (algorithm, digest) {
        case (ReceiptOID.rsaEncryption, _), (ReceiptOID.sha1WithRSA, .sha1), (ReceiptOID.sha256WithRSA, .sha256): return
        default: throw ReceiptFormatError("is signed with an algorithm other than RSA PKCS #1 v1.5", unsupported: true)
        }
    }
}
