import Crypto
import Foundation
import SwiftASN1
import X509

extension DevelopmentCertificateAuthority {
    /// Start of validity of every development certificate: fixed, so payloads signed with an old `signedDate`
    /// still verify.
    static let notValidBefore = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01T00:00:00Z
    /// End of validity of every development certificate.
    static let notValidAfter = Date(timeIntervalSince1970: 2_208_988_800)  // 2040-01-01T00:00:00Z

    /// Makes a fresh root, intermediate and leaf with new P-256 keys.
    static func issue() throws(DevelopmentAuthorityError) -> DevelopmentCertificateAuthority {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let certificates: (Certificate, Certificate, Certificate)
        do {
            let rootName = try DistinguishedName {
                CommonName("Depot Development Root CA")
                OrganizationName("Depot development, not Apple")
            }
            let intermediateName = try DistinguishedName {
                CommonName("Depot Development Intermediate CA")
                OrganizationName("Depot development, not Apple")
            }
            let leafName = try DistinguishedName {
                CommonName("Depot Development App Store Signing")
                OrganizationName("Depot development, not Apple")
            }
            let root = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(rootKey.publicKey),
                notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: rootName, subject: rootName,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: .init(rootKey.publicKey))
                },
                issuerPrivateKey: .init(rootKey))
            let intermediate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(intermediateKey.publicKey),
                notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: rootName,
                subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: .init(intermediateKey.publicKey))
                    AuthorityKeyIdentifier(
                        keyIdentifier: SubjectKeyIdentifier(hash: .init(rootKey.publicKey)).keyIdentifier)
                    Certificate.Extension(oid: AppStoreExtensionID.intermediate, critical: false, value: asn1Null)
                },
                issuerPrivateKey: .init(rootKey))
            let leaf = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(leafKey.publicKey),
                notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: intermediateName,
                subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    AuthorityKeyIdentifier(
                        keyIdentifier: SubjectKeyIdentifier(hash: .init(intermediateKey.publicKey)).keyIdentifier)
                    Certificate.Extension(oid: AppStoreExtensionID.leaf, critical: false, value: asn1Null)
                },
                issuerPrivateKey: .init(intermediateKey))
            certificates = (root, intermediate, leaf)
        } catch {
            throw DevelopmentAuthorityError(.signingFailed, "the development certificates could not be made")
        }
        return try DevelopmentCertificateAuthority(
            root: certificates.0, intermediate: certificates.1, leaf: certificates.2, leafKey: leafKey)
    }

    /// The value of Apple's marker extensions: only their presence counts; ASN.1 NULL (DER 05 00).
    private static let asn1Null: ArraySlice<UInt8> = [0x05, 0x00]
}
