import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import X509

extension DevelopmentReceiptAuthority {
    /// Makes a fresh root, intermediate and leaf with new 2,048-bit RSA keys, valid from 2020 to 2040 like the
    /// JWS development chain.
    static func issue() throws(DevelopmentAuthorityError) -> DevelopmentReceiptAuthority {
        do {
            let rootKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let intermediateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let leafKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let organization = "Depot development, not Apple"
            let rootName = try DistinguishedName {
                CommonName("Depot Development Receipt Root CA")
                OrganizationName(organization)
            }
            let intermediateName = try DistinguishedName {
                CommonName("Depot Development Receipt Intermediate CA")
                OrganizationName(organization)
            }
            let leafName = try DistinguishedName {
                CommonName("Depot Development Receipt Signing")
                OrganizationName(organization)
            }
            let notValidBefore = DevelopmentCertificateAuthority.notValidBefore
            let notValidAfter = DevelopmentCertificateAuthority.notValidAfter
            let root = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(rootKey.publicKey),
                notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: rootName, subject: rootName,
                signatureAlgorithm: .sha256WithRSAEncryption,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                },
                issuerPrivateKey: .init(rootKey))
            let intermediate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(intermediateKey.publicKey),
                notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: rootName, subject: intermediateName,
                signatureAlgorithm: .sha256WithRSAEncryption,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    Certificate.Extension(oid: AppStoreExtensionID.intermediate, critical: false, value: [0x05, 0x00])
                },
                issuerPrivateKey: .init(rootKey))
            let leaf = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(leafKey.publicKey),
                notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: intermediateName, subject: leafName,
                signatureAlgorithm: .sha256WithRSAEncryption,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    Certificate.Extension(oid: AppStoreExtensionID.leaf, critical: false, value: [0x05, 0x00])
                },
                issuerPrivateKey: .init(intermediateKey))
            return try DevelopmentReceiptAuthority(root: root, intermediate: intermediate, leaf: leaf, leafKey: leafKey)
        } catch let error as DevelopmentAuthorityError {
            throw error
        } catch {
            throw DevelopmentAuthorityError(.signingFailed, "the development receipt certificates could not be made")
        }
    }
}
