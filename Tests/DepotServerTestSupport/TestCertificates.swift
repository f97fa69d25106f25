import Crypto
import Foundation
import SwiftASN1
import X509

/// A throwaway certificate authority and a server certificate it issued for `127.0.0.1` and `localhost`, with new
/// P-256 keys, written as PEM files for `server.tls` and for clients (`curl --cacert`).
struct TestCertificates {
    /// The authority's certificate: the one clients trust.
    let authorityPEM: String
    /// The server's certificate chain, leaf first, then the authority.
    let chainPEM: String
    /// The server certificate's private key (PKCS#8).
    let keyPEM: String

    /// Makes a new authority and server certificate, valid from an hour ago for a day.
    init() throws {
        let authorityKey = P256.Signing.PrivateKey()
        let serverKey = P256.Signing.PrivateKey()
        let authorityName = try DistinguishedName { CommonName("Depot test authority") }
        let serverName = try DistinguishedName { CommonName("localhost") }
        let now = Date()
        let authority = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(authorityKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: authorityName, subject: authorityName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
                SubjectKeyIdentifier(hash: .init(authorityKey.publicKey))
            },
            issuerPrivateKey: .init(authorityKey))
        let server = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: authorityName, subject: serverName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
                AuthorityKeyIdentifier(
                    keyIdentifier: SubjectKeyIdentifier(hash: .init(authorityKey.publicKey)).keyIdentifier)
            },
            issuerPrivateKey: .init(authorityKey))
        authorityPEM = try authority.serializeAsPEM().pemString + "\n"
        chainPEM = try server.serializeAsPEM().pemString + "\n" + authorityPEM
        keyPEM = serverKey.pemRepresentation + "\n"
    }

    /// Writes `Config/tls/chain.pem`, `Config/tls/key.pem` and `authority.pem` under `scratch`; returns the members
    /// of the `server` object that turn TLS on (`"tls": {...}`, relative to the configuration directory).
    func write(into scratch: ScratchDirectory) throws -> String {
        try scratch.write("Config/tls/chain.pem", chainPEM)
        try scratch.write("Config/tls/key.pem", keyPEM)
        try scratch.write("authority.pem", authorityPEM)
        return "\"tls\": {\"certificateChainPath\": \"tls/chain.pem\", \"privateKeyPath\": \"tls/key.pem\"}"
    }

    /// Where `write(into:)` put the authority's certificate.
    static func authorityPath(in scratch: ScratchDirectory) -> String { scratch.path + "/authority.pem" }
}
