import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// The `x5c` chain of an App Store JWS header: leaf, intermediate, root, as Apple always sends them.
///
/// Each step fails with its own code, in the order Apple's App Store Server Library applies them.
struct PresentedChain {
    let leaf: Certificate
    let intermediate: Certificate
    let root: Certificate

    /// Reads `x5c`: exactly three standard-base64 DER certificates (RFC 7515 §4.1.6).
    init(header: [String: JSONValue]) throws(AppStoreVerificationError) {
        guard case .array(let entries)? = header["x5c"] else {
            throw AppStoreVerificationError(.x5cMissing, "the JWS header has no x5c certificate chain")
        }
        guard entries.count == 3 else {
            throw AppStoreVerificationError(
                .x5cWrongCount, "the x5c chain holds \(entries.count) certificates, not leaf, intermediate and root")
        }
        var certificates: [Certificate] = []
        for (entry, position) in zip(entries, Self.positions) {
            guard case .string(let text) = entry, let der = Data(base64Encoded: text),
                let certificate = try? Certificate(derEncoded: Array(der))
            else {
                throw AppStoreVerificationError(
                    .certificateMalformed, "the \(position) certificate is not DER in base64")
            }
            certificates.append(certificate)
        }
        (leaf, intermediate, root) = (certificates[0], certificates[1], certificates[2])
    }

    private static let positions = ["leaf", "intermediate", "root"]

    /// The leaf's P-256 key.
    func leafKey() throws(AppStoreVerificationError) -> P256.Signing.PublicKey {
        guard let key = P256.Signing.PublicKey(leaf.publicKey) else {
            throw AppStoreVerificationError(.signatureInvalid, "the leaf certificate's key is not a P-256 key")
        }
        return key
    }

    /// When all three certificates are valid: from the latest `notValidBefore` to the earliest `notValidAfter`.
    var validity: (from: Date, until: Date) {
        let certificates = [leaf, intermediate, root]
        return (certificates.map(\.notValidBefore).max()!, certificates.map(\.notValidAfter).min()!)
    }

    /// Checks the JWS signature with the leaf's key: ES256 is ECDSA P-256 with SHA-256, signature raw r||s
    /// (RFC 7518 §3.4).
    func checkSignature(of jws: CompactJWS) throws(AppStoreVerificationError) {
        try Self.checkSignature(of: jws, with: try leafKey())
    }

    /// Checks the JWS signature with `key`.
    static func checkSignature(of jws: CompactJWS, with key: P256.Signing.PublicKey) throws(AppStoreVerificationError) {
        guard jws.signature.count == 64,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature),
            key.isValidSignature(signature, for: jws.signingInput)
        else {
            throw AppStoreVerificationError(.signatureInvalid, "the signature does not match the leaf certificate")
        }
    }

    /// Checks that each presented certificate was valid at `time` (the payload's `signedDate`).
    func checkValidity(at time: Date) throws(AppStoreVerificationError) {
        for (certificate, position) in zip([leaf, intermediate, root], Self.positions) {
            if time < certificate.notValidBefore {
                throw AppStoreVerificationError(
                    .certificateExpired, "the \(position) certificate was not yet valid when the data was signed")
            }
            if time > certificate.notValidAfter {
                throw AppStoreVerificationError(
                    .certificateExpired, "the \(position) certificate had expired when the data was signed")
            }
        }
    }

    /// Builds and checks the chain with swift-certificates' RFC 5280 policy at `time`, against `roots`.
    ///
    /// As in Apple's library only the presented intermediate is offered for path building, so the path is
    /// exactly leaf → intermediate → trusted root: an x5c whose third certificate is itself an intermediate
    /// below a trusted root is refused. The presented root must be that trusted root (or carry its subject and
    /// key).
    func checkTrust(roots: CertificateStore, at time: Date) async throws(AppStoreVerificationError) {
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            AppStoreMarkerExtensionsPolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        guard case .validCertificate(let validated) = result else {
            throw AppStoreVerificationError(.chainUntrusted, "the certificate chain does not lead to a trusted root")
        }
        let chain = Array(validated)
        guard chain.count == 3, chain[0] == leaf, chain[1] == intermediate,
            chain[2] == root || (chain[2].subject == root.subject && chain[2].publicKey == root.publicKey)
        else {
            throw AppStoreVerificationError(
                .chainUntrusted, "the certificate chain is not leaf, intermediate and trusted root as presented")
        }
    }

    /// Checks Apple's marker extensions: presence is what Apple's libraries require.
    func checkAppleExtensions() throws(AppStoreVerificationError) {
        guard leaf.extensions[oid: AppStoreExtensionID.leaf] != nil else {
            throw AppStoreVerificationError(
                .leafOIDMissing, "the leaf certificate is not an App Store signing certificate")
        }
        guard intermediate.extensions[oid: AppStoreExtensionID.intermediate] != nil else {
            throw AppStoreVerificationError(
                .intermediateOIDMissing, "the intermediate certificate is not an Apple WWDR intermediate")
        }
    }
}

/// Declares Apple's marker extensions understood, so that a chain marking them critical is not refused as
/// carrying unhandled critical extensions (RFC 5280 §4.2).
///
/// Their presence is enforced by ``PresentedChain/checkAppleExtensions()`` once the chain is built, so that a
/// missing marker is reported with its own code rather than as an untrusted chain.
struct AppStoreMarkerExtensionsPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
        AppStoreExtensionID.leaf, AppStoreExtensionID.intermediate,
    ]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        .meetsPolicy
    }
}
