import Crypto
import Foundation

/// One development-signed App Store transaction whose ES256 check can be repeated stage by stage, from
/// BoringSSL's P-256 verify alone to the whole trust step of a redemption, so that each stage's cost can be
/// measured on its own (`depot dev signature-speed`, bench/signature-check.sh).
///
/// Every stage checks the same token, signed once by a fresh development authority, and counts the checks
/// that held: a stage that stopped verifying would show as a count below the number of checks.
package struct SignatureCheckProbe: Sendable {
    /// What one check of a stage does; each stage adds work to the one before it.
    package enum Stage: String, CaseIterable, Sendable {
        /// P-256 verify of a SHA-256 digest computed once, with a parsed key and signature: what
        /// `openssl speed ecdsap256` times.
        case verify
        /// The same with the SHA-256 of the JWS signing input computed per check.
        case hash
        /// Depot's check with the key kept beside a verified chain: the signature read from raw r||s, the
        /// signing input hashed, the signature verified (``PresentedChain/checkSignature(of:with:)``).
        case depot
        /// The same with the leaf's P-256 key built from its certificate per check.
        case key
        /// ``AppStoreVerifier/verifyTransaction(_:)`` of the token with its chain already verified: the JWS split
        /// and decoded, its header and payload read, the signature checked, the transaction's fields read.
        case token
    }

    private let jws: String
    private let token: CompactJWS
    private let chain: PresentedChain
    private let key: P256.Signing.PublicKey
    private let signature: P256.Signing.ECDSASignature
    private let digest: SHA256Digest
    private let verifier: AppStoreVerifier

    /// Issues a development authority, signs one non-consumable transaction and verifies it once, so that its
    /// chain is kept for the ``Stage/token`` stage.
    package init() async throws(AppStoreVerificationError) {
        let jws: String
        let rootDER: [UInt8]
        do {
            let authority = try DevelopmentCertificateAuthority.issue()
            let builder = DevelopmentTransactionBuilder(
                bundleId: "depot.probe", productId: "depot.probe.item",
                type: DevelopmentTransactionBuilder.ProductType.nonConsumable)
            jws = try authority.sign(payload: builder.payload())
            rootDER = authority.rootDER
        } catch {
            throw AppStoreVerificationError(.configurationInvalid, "the probe's token could not be signed")
        }
        let verifier = try AppStoreVerifier(
            trustedRootsDER: [rootDER], bundleId: "depot.probe",
            acceptedEnvironments: [AppStoreEnvironment.sandbox])
        _ = try await verifier.verifyTransaction(jws)
        let token = try CompactJWS(parsing: jws)
        let chain = try PresentedChain(header: token.header)
        let key = try chain.leafKey()
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: token.signature) else {
            throw AppStoreVerificationError(.signatureInvalid, "the probe's signature is not raw r||s")
        }
        self.jws = jws
        self.token = token
        self.chain = chain
        self.key = key
        self.signature = signature
        self.digest = SHA256.hash(data: token.signingInput)
        self.verifier = verifier
    }

    /// The ``Stage/verify`` stage's inputs, for another library to verify the same signature: the leaf's key as
    /// DER SubjectPublicKeyInfo, the SHA-256 digest of the signing input and the signature as DER (RFC 3279).
    package var fixture: (publicKeyDER: [UInt8], digest: [UInt8], signatureDER: [UInt8]) {
        (Array(key.derRepresentation), Array(digest), Array(signature.derRepresentation))
    }

    /// Runs `times` checks of `stage` and answers how many held.
    package func run(_ stage: Stage, times: Int) async -> Int {
        var held = 0
        for _ in 0..<max(times, 0) {
            if await check(stage) { held += 1 }
        }
        return held
    }

    /// One check of `stage`.
    private func check(_ stage: Stage) async -> Bool {
        switch stage {
        case .verify:
            return key.isValidSignature(signature, for: digest)
        case .hash:
            return key.isValidSignature(signature, for: token.signingInput)
        case .depot:
            return (try? PresentedChain.checkSignature(of: token, with: key)) != nil
        case .key:
            return (try? chain.checkSignature(of: token)) != nil
        case .token:
            return (try? await verifier.verifyTransaction(jws)) != nil
        }
    }
}
