import Crypto
import DepotCore
import Foundation
import Testing
import X509

@testable import DepotTrust

/// What a receipt's certificate set may hold: Apple embeds leaf, intermediate and root (Xcode one certificate). A set
/// of more, or with two certificates named as the signer's issuer, would let a sender make the chain search try every
/// ordering of them (a few kilobytes costing seconds of signature checks), so both are refused before any search.
@Suite("An app receipt's certificate set")
struct ReceiptCertificateSetTests {
    @Test func moreThanThreeCertificatesAreRefusedAsMalformed() async throws {
        try await withTemporaryDirectory { path in
            let authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: path + "/ca")
            let verifier = try Self.verifier(authority)
            let payload = try DevelopmentReceiptBuilder(bundleId: "com.example.app", productId: "p", type: "nonConsumable").payload()
            #expect(await receiptRefusal(verifier, try authority.sign(payload: payload)) == nil)
            let padded = try authority.sign(
                payload: payload, embedding: [authority.leaf, authority.intermediate, authority.root, authority.intermediate])
            #expect(await receiptRefusal(verifier, padded)?.code == .receiptMalformed)
        }
    }

    @Test func twoCertificatesNamedAsTheSignersIssuerAreRefused() async throws {
        try await withTemporaryDirectory { path in
            let authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: path + "/ca")
            let verifier = try Self.verifier(authority)
            let payload = try DevelopmentReceiptBuilder(bundleId: "com.example.app", productId: "p", type: "nonConsumable").payload()
            // Another certificate with the intermediate's name, self-issued under a key of its own.
            let key = P256.Signing.PrivateKey()
            let namesake = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                notValidBefore: authority.intermediate.notValidBefore, notValidAfter: authority.intermediate.notValidAfter,
                issuer: authority.intermediate.subject, subject: authority.intermediate.subject,
                signatureAlgorithm: .ecdsaWithSHA256, extensions: Certificate.Extensions(), issuerPrivateKey: .init(key))
            let twice = try authority.sign(payload: payload, embedding: [authority.leaf, authority.intermediate, namesake])
            #expect(await receiptRefusal(verifier, twice)?.code == .chainUntrusted)
        }
    }

    /// A verifier trusting `authority`'s root for sandbox receipts.
    static func verifier(_ authority: DevelopmentReceiptAuthority) throws -> AppReceiptVerifier {
        try AppReceiptVerifier(
            trustedRootsDER: [authority.rootDER], bundleId: "com.example.app", acceptedEnvironments: ["Production", "Sandbox"])
    }
}
