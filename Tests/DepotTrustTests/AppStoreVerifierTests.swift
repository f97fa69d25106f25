import DepotCore
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509

@testable import DepotTrust

@Suite("App Store signed data: JWS and chain")
struct AppStoreVerifierTests {
    @Test func goodChainVerifiesAndDecodes() async throws {
        let chain = try TestChain()
        let transaction = try await chain.verifier().verifyTransaction(try chain.sign(TestChain.transaction()))
        #expect(transaction.transactionId == "2000000000000001")
        #expect(transaction.originalTransactionId == "2000000000000001")
        #expect(transaction.productId == "com.example.level1")
        #expect(transaction.type == "Non-Consumable")
        #expect(transaction.bundleId == "com.example.app")
        #expect(transaction.environment == "Sandbox")
        #expect(transaction.signedDate == TestChain.signedDate)
        #expect(transaction.purchaseDate == TestChain.signedDate - 1_000)
        #expect(transaction.quantity == 1)
        #expect(transaction.expiresDate == nil && transaction.revocationDate == nil)
        #expect(transaction.inAppOwnershipType == "PURCHASED")
    }

    @Test func markerExtensionsMarkedCriticalAreStillAccepted() async throws {
        var options = TestChain.Options()
        options.markersCritical = true
        let chain = try TestChain(options)
        _ = try await chain.verifier().verifyTransaction(try chain.sign(TestChain.transaction()))
    }

    @Test func validationTimeIsSignedDateNotNow() async throws {
        // The leaf expired in 2021; data signed in mid-2020 still verifies, as Apple's library does offline.
        var options = TestChain.Options()
        options.leafValidity = (TestChain.year2020, TestChain.year2021)
        let chain = try TestChain(options)
        let signedIn2020: Int64 = 1_593_561_600_000
        let payload = TestChain.transaction([
            "signedDate": .integer(signedIn2020), "purchaseDate": .integer(signedIn2020 - 1_000),
        ])
        let transaction = try await chain.verifier().verifyTransaction(try chain.sign(payload))
        #expect(transaction.signedDate == signedIn2020)
    }

    @Test(arguments: [
        ("missing leaf OID", [], [TestChain.intermediateOID], "leaf-oid-missing"),
        ("missing intermediate OID", [TestChain.leafOID], [], "intermediate-oid-missing"),
        ("OIDs swapped", [TestChain.intermediateOID], [TestChain.leafOID], "leaf-oid-missing"),
        ("unrelated leaf OID", [TestChain.unrelatedOID], [TestChain.intermediateOID], "leaf-oid-missing"),
        ("unrelated intermediate OID", [TestChain.leafOID], [TestChain.unrelatedOID], "intermediate-oid-missing"),
    ])
    func markerExtensionsAreRequired(
        _ name: String, leafOIDs: [ASN1ObjectIdentifier], intermediateOIDs: [ASN1ObjectIdentifier], code: String
    ) async throws {
        var options = TestChain.Options()
        options.leafOIDs = leafOIDs
        options.intermediateOIDs = intermediateOIDs
        let chain = try TestChain(options)
        let jws = try chain.sign(TestChain.transaction())
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code.description == code, "\(name)")
    }

    @Test(arguments: [
        ("leaf expired", TestChain.year2020, TestChain.year2021, true),
        ("leaf not yet valid", TestChain.year2030, TestChain.year2040, true),
        ("intermediate expired", TestChain.year2020, TestChain.year2021, false),
    ])
    func certificatesMustBeValidAtSignedDate(_ name: String, from: Date, until: Date, onLeaf: Bool) async throws {
        var options = TestChain.Options()
        if onLeaf { options.leafValidity = (from, until) } else { options.intermediateValidity = (from, until) }
        let chain = try TestChain(options)
        let jws = try chain.sign(TestChain.transaction())
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .certificateExpired, "\(name)")
    }

    @Test func selfSignedLeafPresentedThreeTimesIsUntrusted() async throws {
        let trusted = try TestChain()
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("Self-signed leaf") }
        let selfSigned = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: TestChain.year2020, notValidAfter: TestChain.year2040, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Certificate.Extension(oid: TestChain.leafOID, critical: false, value: [0x05, 0x00])
                Certificate.Extension(oid: TestChain.intermediateOID, critical: false, value: [0x05, 0x00])
            },
            issuerPrivateKey: .init(key))
        let jws = try trusted.sign(
            TestChain.transaction(), certificates: [selfSigned, selfSigned, selfSigned], key: key)
        let error = await refusal(try trusted.verifier(), jws)
        #expect(error?.code == .chainUntrusted)
    }

    @Test func chainToAnUntrustedRootIsRefused() async throws {
        let trusted = try TestChain()
        let other = try TestChain(.init(name: "Other"))
        let jws = try other.sign(TestChain.transaction())
        let error = await refusal(try trusted.verifier(), jws)
        #expect(error?.code == .chainUntrusted)
    }

    @Test func presentedRootMustBeTheRootTheChainLeadsTo() async throws {
        // Both roots are trusted, but the x5c names the other one as the root.
        let chain = try TestChain()
        let other = try TestChain(.init(name: "Other"))
        let jws = try chain.sign(TestChain.transaction(), certificates: [chain.leaf, chain.intermediate, other.root])
        let error = await refusal(try chain.verifier(alsoTrusting: [other]), jws)
        #expect(error?.code == .chainUntrusted)
    }

    /// leaf → intermediate (Apple marker) → a second CA issued by `chain`'s root; returns the certificates and
    /// the leaf's key.
    static func longerChain(below chain: TestChain) throws -> (Certificate, Certificate, Certificate, P256.Signing.PrivateKey) {
        let upperKey = P256.Signing.PrivateKey()
        let lowerKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("Test Root") }
        let upperName = try DistinguishedName { CommonName("Upper Intermediate") }
        let lowerName = try DistinguishedName { CommonName("Lower Intermediate") }
        let leafName = try DistinguishedName { CommonName("Deep Leaf") }
        let upper = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(upperKey.publicKey),
            notValidBefore: TestChain.year2020, notValidAfter: TestChain.year2040, issuer: rootName,
            subject: upperName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Certificate.Extension(oid: TestChain.intermediateOID, critical: false, value: [0x05, 0x00])
            },
            issuerPrivateKey: .init(chain.rootKey))
        let lower = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(lowerKey.publicKey),
            notValidBefore: TestChain.year2020, notValidAfter: TestChain.year2040, issuer: upperName,
            subject: lowerName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Certificate.Extension(oid: TestChain.intermediateOID, critical: false, value: [0x05, 0x00])
            },
            issuerPrivateKey: .init(upperKey))
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: TestChain.year2020, notValidAfter: TestChain.year2040, issuer: lowerName,
            subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Certificate.Extension(oid: TestChain.leafOID, critical: false, value: [0x05, 0x00])
            },
            issuerPrivateKey: .init(lowerKey))
        return (leaf, lower, upper, leafKey)
    }

    @Test func thirdCertificateMustBeATrustedRootNotAnIntermediateBelowOne() async throws {
        let chain = try TestChain()
        let (leaf, lower, upper, leafKey) = try Self.longerChain(below: chain)
        let jws = try chain.sign(TestChain.transaction(), certificates: [leaf, lower, upper], key: leafKey)
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .chainUntrusted)
        // The same x5c is accepted once its third certificate is itself a configured root.
        let trustingUpper = try AppStoreVerifier(
            trustedRootsDER: [chain.rootDER, TestChain.der(upper)], bundleId: "com.example.app",
            acceptedEnvironments: ["Sandbox"])
        #expect(await refusal(trustingUpper, jws) == nil)
    }

    @Test func intermediateThatIsNotACAIsRefused() async throws {
        var options = TestChain.Options()
        options.intermediateIsCA = false
        let chain = try TestChain(options)
        let jws = try chain.sign(TestChain.transaction())
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .chainUntrusted)
    }

    @Test(arguments: [2, 4, 1, 0])
    func x5cMustHoldThreeCertificates(count: Int) async throws {
        let chain = try TestChain()
        let certificates = Array([chain.leaf, chain.intermediate, chain.root, chain.root].prefix(count))
        let jws = try chain.sign(TestChain.transaction(), certificates: certificates)
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .x5cWrongCount)
    }

    @Test(arguments: [JSONValue.null, "MIIB", 3])
    func x5cMustBeAnArray(value: JSONValue) async throws {
        let chain = try TestChain()
        let jws = try chain.sign(TestChain.transaction(), header: ["x5c": value])
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .x5cMissing)
    }

    @Test func x5cEntriesMustBeBase64DER() async throws {
        let chain = try TestChain()
        let good = TestChain.x5c([chain.leaf, chain.intermediate, chain.root])
        guard case .array(let entries) = good else { return }
        for (index, bad) in [JSONValue.string("not base64!"), .string("AAAA"), .integer(1)].enumerated() {
            var broken = entries
            broken[index] = bad
            // Base64url, not standard base64, is refused too.
            let jws = try chain.sign(TestChain.transaction(), header: ["x5c": .array(broken)])
            let error = await refusal(try chain.verifier(), jws)
            #expect(error?.code == .certificateMalformed)
        }
        let urlSafe = Base64URL.encode(TestChain.der(chain.leaf))
        let jws = try chain.sign(TestChain.transaction(), header: ["x5c": .array([.string(urlSafe)] + entries[1...])])
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .certificateMalformed)
    }

    @Test func headerWithoutX5cIsRefused() async throws {
        let chain = try TestChain()
        let jws = try CompactJWS.signES256(
            header: ["alg": "ES256"], payload: TestChain.transaction(), key: chain.leafKey)
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .x5cMissing)
    }

    @Test(arguments: ["none", "HS256", "ES384", "RS256", "es256"])
    func onlyES256IsAccepted(alg: String) async throws {
        let chain = try TestChain()
        let jws = try chain.sign(TestChain.transaction(), header: ["alg": .string(alg)])
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .jwsUnsupportedAlgorithm)
    }

    @Test func unsecuredJWSWithEmptySignatureIsRefused() async throws {
        let chain = try TestChain()
        let signed = try chain.sign(TestChain.transaction(), header: ["alg": "none"])
        let unsecured = signed.split(separator: ".")[0...1].joined(separator: ".") + "."
        let error = await refusal(try chain.verifier(), unsecured)
        #expect(error?.code == .jwsUnsupportedAlgorithm)
    }

    @Test func missingAlgorithmIsRefused() async throws {
        let chain = try TestChain()
        let jws = try chain.sign(TestChain.transaction(), header: ["alg": .null])
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .jwsUnsupportedAlgorithm)
    }

    @Test func criticalHeaderExtensionsAreRefused() async throws {
        let chain = try TestChain()
        let jws = try chain.sign(TestChain.transaction(), header: ["crit": ["exp"], "exp": 1])
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .jwsMalformed)
    }

    @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "!!.eyJ9.AA", "e30.e30.e30.", "bm90IGpzb24.e30.AAAA"])
    func malformedTokensAreRefused(token: String) async throws {
        let chain = try TestChain()
        let error = await refusal(try chain.verifier(), token)
        #expect(error?.code == .jwsMalformed)
    }

    @Test func oversizedTokenIsRefusedWithoutParsing() async throws {
        let chain = try TestChain()
        let token = String(repeating: "A", count: CompactJWS.maximumLength + 1)
        let error = await refusal(try chain.verifier(), token)
        #expect(error?.code == .jwsMalformed)
    }

    @Test func tamperedPayloadIsRefused() async throws {
        let chain = try TestChain()
        let parts = try chain.sign(TestChain.transaction()).split(separator: ".").map(String.init)
        let forged = Base64URL.encode(
            try JSONValue.encodeObject(TestChain.transaction(["productId": "com.example.gold"])))
        let error = await refusal(
            try chain.verifier(), [parts[0], forged, parts[2]].joined(separator: "."))
        #expect(error?.code == .signatureInvalid)
    }

    @Test func tamperedHeaderIsRefused() async throws {
        let chain = try TestChain()
        let parts = try chain.sign(TestChain.transaction()).split(separator: ".").map(String.init)
        let header: [String: JSONValue] = [
            "alg": "ES256", "kid": "added", "x5c": TestChain.x5c([chain.leaf, chain.intermediate, chain.root]),
        ]
        let forged = Base64URL.encode(try JSONValue.encodeObject(header))
        let error = await refusal(
            try chain.verifier(), [forged, parts[1], parts[2]].joined(separator: "."))
        #expect(error?.code == .signatureInvalid)
    }

    @Test func signatureByAnotherKeyIsRefused() async throws {
        let chain = try TestChain()
        let jws = try chain.sign(TestChain.transaction(), key: P256.Signing.PrivateKey())
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .signatureInvalid)
    }

    @Test func signatureOfWrongLengthIsRefused() async throws {
        let chain = try TestChain()
        let parts = try chain.sign(TestChain.transaction()).split(separator: ".").map(String.init)
        let derLike = Base64URL.encode(Array(repeating: 0x30, count: 70))
        let error = await refusal(
            try chain.verifier(), [parts[0], parts[1], derLike].joined(separator: "."))
        #expect(error?.code == .signatureInvalid)
    }

    @Test func wrongBundleIdIsRefused() async throws {
        let chain = try TestChain()
        let jws = try chain.sign(TestChain.transaction(["bundleId": "com.example.other"]))
        let error = await refusal(try chain.verifier(), jws)
        #expect(error?.code == .bundleIdMismatch)
    }

    @Test(arguments: ["Production", "Xcode", "LocalTesting", "Staging"])
    func environmentMustBeAccepted(environment: String) async throws {
        let chain = try TestChain()
        let jws = try chain.sign(TestChain.transaction(["environment": .string(environment)]))
        let strict = try chain.verifier(environments: ["Sandbox"])
        let error = await refusal(strict, jws)
        #expect(error?.code == .environmentNotAccepted)
        // An unknown environment is kept as it came, and accepted once configured.
        let lenient = try chain.verifier(environments: [environment])
        #expect(try await lenient.verifyTransaction(jws).environment == environment)
    }

    @Test func errorsNeverEchoTheToken() async throws {
        let chain = try TestChain()
        let jws = try chain.sign(TestChain.transaction(["bundleId": "com.example.other"]))
        let error = try #require(await refusal(try chain.verifier(), jws))
        let parts = jws.split(separator: ".")
        #expect(!parts.contains { error.description.contains($0) })
        #expect(!error.description.contains("com.example.other"))
    }

    @Test func configurationIsChecked() throws {
        let chain = try TestChain()
        #expect(throws: AppStoreVerificationError.self) {
            try AppStoreVerifier(trustedRootsDER: [], bundleId: "com.example.app", acceptedEnvironments: ["Sandbox"])
        }
        #expect(throws: AppStoreVerificationError.self) {
            try AppStoreVerifier(trustedRootsDER: [chain.rootDER], bundleId: "", acceptedEnvironments: ["Sandbox"])
        }
        #expect(throws: AppStoreVerificationError.self) {
            try AppStoreVerifier(
                trustedRootsDER: [chain.rootDER], bundleId: "com.example.app", acceptedEnvironments: [])
        }
        do {
            _ = try AppStoreVerifier(trustedRootsDER: [[1, 2, 3]], bundleId: "a", acceptedEnvironments: ["Sandbox"])
            Issue.record("a garbage root was accepted")
        } catch {
            #expect(error.code == .certificateMalformed)
        }
    }
}
