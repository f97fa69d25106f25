import SwiftASN1
import X509

/// What verification needs of an app receipt's CMS `ContentInfo` (RFC 5652): the signed payload, the embedded
/// certificates, and the one signer's digest algorithm, signature and certificate.
///
/// Read with swift-asn1's BER rules, so that the indefinite lengths Xcode writes are read as well as Apple's DER.
/// Exactly the shape Apple writes is accepted: content type signed-data holding id-data content, one digest
/// algorithm, at most ``AppReceiptLimits/maximumCertificates`` certificates, no CRLs, and one signer named by
/// issuer and serial number, without signed attributes (which Apple never writes); nothing may follow the
/// `ContentInfo`.
struct ReceiptEnvelope {
    /// The eContent: the DER of the receipt's attribute set, as signed.
    let payload: [UInt8]
    /// The signer's digest algorithm.
    let digest: ReceiptDigest
    /// The signer's RSA PKCS #1 v1.5 signature over the digest of ``payload``.
    let signature: [UInt8]
    /// The embedded certificates, in order.
    let certificates: [Certificate]
    /// The certificate the signer names (one of ``certificates``).
    let signer: Certificate

    /// Reads `bytes`, or says why they are not a receipt envelope.
    init(bytes: [UInt8]) throws(ReceiptFormatError) {
        guard bytes.count <= AppReceiptLimits.maximumBytes else {
            throw ReceiptFormatError("is longer than \(AppReceiptLimits.maximumBytes) bytes")
        }
        guard !bytes.isEmpty else { throw ReceiptFormatError("is empty") }
        do {
            self = try Self.read(try BER.parse(bytes))
        } catch let error as ReceiptFormatError {
            throw error
        } catch {
            throw ReceiptFormatError("is not CMS SignedData (ASN.1: \(Self.describe(error)))")
        }
    }

    private init(
        payload: [UInt8], digest: ReceiptDigest, signature: [UInt8], certificates: [Certificate], signer: Certificate
    ) {
        self.payload = payload
        self.digest = digest
        self.signature = signature
        self.certificates = certificates
        self.signer = signer
    }

    /// A short account of a swift-asn1 error (its kind, not its reason text, which may quote bytes).
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? ASN1Error else { return "unreadable" }
        switch error.code {
        case .truncatedASN1Field: return "truncated"
        case .unexpectedFieldType: return "unexpected field"
        case .unsupportedFieldLength: return "unsupported length"
        default: return "invalid encoding"
        }
    }

    private static func read(_ root: ASN1Node) throws -> ReceiptEnvelope {
        try BER.sequence(root, identifier: .sequence) { nodes in
            let contentType = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard contentType == ReceiptOID.signedData else { throw ReceiptFormatError("is not CMS signed data") }
            return try BER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                try signedData(node)
            }
        }
    }

    /// `SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo, [0] certificates, [1] crls,
    /// signerInfos SET }`.
    private static func signedData(_ node: ASN1Node) throws -> ReceiptEnvelope {
        try BER.sequence(node, identifier: .sequence) { nodes in
            let version = try Int(berEncoded: &nodes)
            guard (1...5).contains(version) else { throw ReceiptFormatError("has an unknown SignedData version") }
            let digestAlgorithms = try BER.set(of: ReceiptAlgorithm.self, identifier: .set, nodes: &nodes)
            guard digestAlgorithms.count == 1 else {
                throw ReceiptFormatError("names \(digestAlgorithms.count) digest algorithms, not one")
            }
            let payload = try encapsulatedContent(&nodes)
            let certificates = try embeddedCertificates(&nodes)
            if let next = nodes.peek(), next.identifier == ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific) {
                throw ReceiptFormatError("carries revocation lists, which receipts never do")
            }
            guard let signerInfos = nodes.next() else { throw ReceiptFormatError("has no signer") }
            let signer = try BER.set(signerInfos, identifier: .set) { signers in
                guard let only = signers.next(), signers.next() == nil else {
                    throw ReceiptFormatError("does not have exactly one signer")
                }
                return try ReceiptSigner(node: only)
            }
            guard signer.digest == (try digestAlgorithms[0].digest()) else {
                throw ReceiptFormatError("its signer uses a digest algorithm the SignedData does not list")
            }
            guard
                let certificate = certificates.first(where: {
                    $0.issuer == signer.issuer && $0.serialNumber == signer.serialNumber
                })
            else { throw ReceiptFormatError("its signer's certificate is not embedded") }
            return ReceiptEnvelope(
                payload: payload, digest: signer.digest, signature: signer.signature, certificates: certificates,
                signer: certificate)
        }
    }

    /// `EncapsulatedContentInfo ::= SEQUENCE { eContentType id-data, [0] EXPLICIT OCTET STRING }`; the OCTET STRING
    /// may be constructed (BER), its pieces then joined.
    private static func encapsulatedContent(_ nodes: inout ASN1NodeCollection.Iterator) throws -> [UInt8] {
        guard let node = nodes.next() else { throw ReceiptFormatError("has no content") }
        return try BER.sequence(node, identifier: .sequence) { inner in
            let contentType = try ASN1ObjectIdentifier(berEncoded: &inner)
            guard contentType == ReceiptOID.data else { throw ReceiptFormatError("its content is not data") }
            guard
                let content = try BER.optionalExplicitlyTagged(
                    &inner, tagNumber: 0, tagClass: .contextSpecific, { try ASN1OctetString(berEncoded: $0) })
            else { throw ReceiptFormatError("is detached: it carries no payload") }
            return Array(content.bytes)
        }
    }

    /// `[0] IMPLICIT SET OF Certificate`, required here: a receipt carries its chain.
    private static func embeddedCertificates(_ nodes: inout ASN1NodeCollection.Iterator) throws -> [Certificate] {
        guard let node = nodes.next(), node.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
            case .constructed(let children) = node.content
        else { throw ReceiptFormatError("embeds no certificates") }
        var certificates: [Certificate] = []
        for child in children {
            guard certificates.count < AppReceiptLimits.maximumCertificates else {
                throw ReceiptFormatError("embeds more than \(AppReceiptLimits.maximumCertificates) certificates")
            }
            guard let certificate = try? Certificate(derEncoded: Array(child.encodedBytes)) else {
                throw ReceiptFormatError("embeds a certificate that is not DER")
            }
            certificates.append(certificate)
        }
        guard !certificates.isEmpty else { throw ReceiptFormatError("embeds no certificates") }
        return certificates
    }
}

extension ASN1NodeCollection.Iterator {
    /// The next node, without consuming it.
    fileprivate func peek() -> ASN1Node? {
        var copy = self
        return copy.next()
    }
}
