import Crypto
import Foundation
import SwiftASN1
import X509

@testable import DepotTrust

/// A root → intermediate → leaf chain made inside a test, with every property a test wants to break.
struct TestChain {
    static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]
    static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]
    static let unrelatedOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 99, 1]

    static let year2020 = Date(timeIntervalSince1970: 1_577_836_800)
    static let year2021 = Date(timeIntervalSince1970: 1_609_459_200)
    static let year2030 = Date(timeIntervalSince1970: 1_893_456_000)
    static let year2040 = Date(timeIntervalSince1970: 2_208_988_800)
    /// 2025-01-01T00:00:00Z in milliseconds: the `signedDate` tests sign with unless they say otherwise.
    static let signedDate: Int64 = 1_735_689_600_000

    struct Options {
        var leafOIDs: [ASN1ObjectIdentifier] = [TestChain.leafOID]
        var intermediateOIDs: [ASN1ObjectIdentifier] = [TestChain.intermediateOID]
        var leafValidity: (Date, Date) = (TestChain.year2020, TestChain.year2040)
        var intermediateValidity: (Date, Date) = (TestChain.year2020, TestChain.year2040)
        var intermediateIsCA = true
        /// Marks Apple's marker extensions critical.
        var markersCritical = false
        var name = "Test"
    }

    let rootKey = P256.Signing.PrivateKey()
    let intermediateKey = P256.Signing.PrivateKey()
    let leafKey = P256.Signing.PrivateKey()
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate

    init(_ options: Options = Options()) throws {
        let rootName = try DistinguishedName { CommonName("\(options.name) Root") }
        let intermediateName = try DistinguishedName { CommonName("\(options.name) Intermediate") }
        let leafName = try DistinguishedName { CommonName("\(options.name) Leaf") }
        root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: Self.year2020, notValidAfter: Self.year2040, issuer: rootName, subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(rootKey))
        var intermediateExtensions = try Certificate.Extensions {
            Critical(
                options.intermediateIsCA
                    ? BasicConstraints.isCertificateAuthority(maxPathLength: 0)
                    : BasicConstraints.notCertificateAuthority)
        }
        for oid in options.intermediateOIDs {
            try intermediateExtensions.append(.init(oid: oid, critical: options.markersCritical, value: [0x05, 0x00]))
        }
        intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: options.intermediateValidity.0, notValidAfter: options.intermediateValidity.1,
            issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: intermediateExtensions, issuerPrivateKey: .init(rootKey))
        var leafExtensions = try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) }
        for oid in options.leafOIDs {
            try leafExtensions.append(.init(oid: oid, critical: options.markersCritical, value: [0x05, 0x00]))
        }
        leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: options.leafValidity.0, notValidAfter: options.leafValidity.1,
            issuer: intermediateName, subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: leafExtensions, issuerPrivateKey: .init(intermediateKey))
    }

    var rootDER: [UInt8] { Self.der(root) }

    /// A verifier for `com.example.app` trusting this chain's root (and `alsoTrusting`).
    /// The verifier's clock is `now` (the real time by default).
    func verifier(
        alsoTrusting others: [TestChain] = [], environments: Set<String> = ["Production", "Sandbox"],
        now: Date? = nil
    ) throws -> AppStoreVerifier {
        try AppStoreVerifier(
            trustedRootsDER: [rootDER] + others.map(\.rootDER), bundleId: "com.example.app",
            acceptedEnvironments: environments, now: { now ?? Date() })
    }

    /// Signs `payload` with a header holding `x5c` (leaf, intermediate, root by default); `header` entries
    /// are written over the defaults, and `key` replaces the leaf's key.
    func sign(
        _ payload: [String: JSONValue], certificates: [Certificate]? = nil, header: [String: JSONValue] = [:],
        key: P256.Signing.PrivateKey? = nil
    ) throws -> String {
        var fullHeader: [String: JSONValue] = [
            "alg": "ES256", "x5c": Self.x5c(certificates ?? [leaf, intermediate, root]),
        ]
        fullHeader.merge(header) { _, new in new }
        return try CompactJWS.signES256(header: fullHeader, payload: payload, key: key ?? leafKey)
    }

    static func x5c(_ certificates: [Certificate]) -> JSONValue {
        .array(certificates.map { .string(Data(der($0)).base64EncodedString()) })
    }

    static func der(_ certificate: Certificate) -> [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// A transaction payload for `com.example.app` signed at ``signedDate``.
    static func transaction(_ overrides: [String: JSONValue] = [:]) -> [String: JSONValue] {
        var payload: [String: JSONValue] = [
            "transactionId": "2000000000000001",
            "originalTransactionId": "2000000000000001",
            "bundleId": "com.example.app",
            "productId": "com.example.level1",
            "type": "Non-Consumable",
            "purchaseDate": .integer(signedDate - 1_000),
            "signedDate": .integer(signedDate),
            "quantity": 1,
            "inAppOwnershipType": "PURCHASED",
            "environment": "Sandbox",
        ]
        payload.merge(overrides) { _, new in new }
        return payload
    }
}

/// Runs `body` and returns the ``AppStoreVerificationError`` it threw, or nil when it did not throw.
func verificationError<T>(_ body: () async throws(AppStoreVerificationError) -> T) async -> AppStoreVerificationError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// The error `verifier` refuses a signed transaction with, or nil when it accepts it.
func refusal(_ verifier: AppStoreVerifier, _ jws: String) async -> AppStoreVerificationError? {
    await verificationError { () async throws(AppStoreVerificationError) in try await verifier.verifyTransaction(jws) }
}
