import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies StoreKit 1 app receipts offline, as Apple's Receipt Validation Programming Guide describes.
///
/// A receipt is accepted when, in this order:
/// 1. it is at most ``AppReceiptLimits/maximumBytes`` of CMS SignedData (DER, or BER as Xcode writes) with
///    exactly the shape Apple writes (``ReceiptEnvelope``): else `receipt-malformed`;
/// 2. its one signer uses SHA-1 or SHA-256 with RSA PKCS #1 v1.5 and no signed attributes: else
///    `receipt-unsupported-algorithm`;
/// 3. the signature over the digest of the payload verifies with the signer certificate's RSA key: else
///    `signature-invalid`;
/// 4. the payload's attributes parse within their bounds (``AppReceipt``): else `receipt-malformed`;
/// 5. its creation date (attribute 12) is not later than the clock plus ``AppStoreClockSkew``: else
///    `signed-in-future`;
/// 6. the signer certificate was valid at the creation date (`certificate-expired`), and swift-certificates
///    builds a chain from it through the embedded certificates to a configured receipt root under RFC 5280 at
///    that date (`chain-untrusted`);
/// 7. unless the signer is itself a configured root (Xcode's self-signed StoreKit certificate, trusted as it
///    is), the signer
///    carries Apple's receipt-signing marker (`leaf-oid-missing`) and the certificate it is issued by the WWDR
///    marker (`intermediate-oid-missing`);
/// 8. a receipt of the `Production` environment chains to Apple Root CA (``AppleRootCA``), unless the verifier
///    trusts development roots for it (``trustsDevelopmentProduction``): else `chain-untrusted`;
/// 9. the bundle id is the configured one (`bundle-id-mismatch`) and the environment
///    (``AppReceipt/environment``) is accepted (`environment-not-accepted`).
///
/// Receipts are judged at their creation date, not now: every Apple receipt-signing certificate expires, and a
/// receipt made while it was valid stays valid, which is why the creation date may not lie in the future.
/// No OCSP or CRL request is made.
package struct AppReceiptVerifier: Sendable {
    private let roots: CertificateStore
    private let rootCertificates: [Certificate]
    /// The configured roots that are Apple Root CA.
    private let appleRoots: [Certificate]
    /// Whether a `Production` receipt may chain to a root other than Apple Root CA (the development receipt
    /// root, Xcode's StoreKit certificate): only where the configuration trusts the development root
    /// (`appStore.trustDevelopmentRoot`, never in production). Otherwise only Apple signs production receipts.
    package let trustsDevelopmentProduction: Bool
    /// Whether every receipt must come with the device id it was issued to (`appStore.requireReceiptDevice`).
    package let requiresDevice: Bool
    /// The app's bundle id every receipt must carry.
    package let bundleId: String
    /// The environments accepted (`Production`, `Sandbox`, `Xcode`), as for a JWS.
    package let acceptedEnvironments: Set<String>
    private let now: @Sendable () -> Date

    /// A verifier trusting `trustedRootsDER` (Apple Root CA; the development receipt root; Xcode's StoreKit
    /// certificate for local testing). Fails with `configuration-invalid` when nothing is trusted or the bundle id
    /// or environments are empty, `certificate-malformed` when a root is not DER. `trustsDevelopmentProduction`
    /// lets `Production` receipts chain to a root other than Apple Root CA; `requiresDevice` refuses a receipt
    /// presented without its device id.
    package init(
        trustedRootsDER: [[UInt8]], bundleId: String, acceptedEnvironments: Set<String>,
        trustsDevelopmentProduction: Bool = false, requiresDevice: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(AppStoreVerificationError) {
        guard !trustedRootsDER.isEmpty else {
            throw AppStoreVerificationError(.configurationInvalid, "no receipt root certificate is configured")
        }
        guard !bundleId.isEmpty else { throw AppStoreVerificationError(.configurationInvalid, "no app bundle id is configured") }
        guard !acceptedEnvironments.isEmpty else {
            throw AppStoreVerificationError(.configurationInvalid, "no App Store environment is accepted")
        }
        var roots: [Certificate] = []
        var appleRoots: [Certificate] = []
        for (index, der) in trustedRootsDER.enumerated() {
            guard let root = try? Certificate(derEncoded: der) else {
                throw AppStoreVerificationError(.certificateMalformed, "receipt root \(index + 1) is not a DER certificate")
            }
            roots.append(root)
            if AppleRootCA.isAppleRootCA(der: der) { appleRoots.append(root) }
        }
        self.rootCertificates = roots
        self.appleRoots = appleRoots
        self.trustsDevelopmentProduction = trustsDevelopmentProduction
        self.requiresDevice = requiresDevice
        self.roots = CertificateStore(roots)
        self.bundleId = bundleId
        self.acceptedEnvironments = acceptedEnvironments
        self.now = now
    }

    /// Verifies `receipt` (its bytes, not base64) and returns its payload.
    package func verify(_ receipt: [UInt8]) async throws(AppStoreVerificationError) -> AppReceipt {
        let envelope: ReceiptEnvelope
        do throws(ReceiptFormatError) {
            envelope = try ReceiptEnvelope(bytes: receipt)
        } catch {
            throw error.verificationError
        }
        try Self.checkSignature(envelope)
        let payload: AppReceipt
        do throws(ReceiptFormatError) {
            payload = try AppReceipt(payload: envelope.payload)
        } catch {
            throw error.verificationError
        }
        let nowMilliseconds = (now().timeIntervalSince1970 * 1000).rounded(.down)
        guard Double(payload.creationDate) <= nowMilliseconds + Double(AppStoreClockSkew.milliseconds) else {
            throw AppStoreVerificationError(.signedInFuture, "the app receipt claims to be made in the future")
        }
        let created = Date(timeIntervalSince1970: Double(payload.creationDate) / 1000)
        let root = try await checkChain(envelope, at: created)
        if payload.receiptType == AppStoreEnvironment.production, !trustsDevelopmentProduction, !appleRoots.contains(root) {
            throw AppStoreVerificationError(
                .chainUntrusted, "a Production app receipt must chain to Apple Root CA; this one is signed by a development root")
        }
        guard payload.bundleId == bundleId else {
            throw AppStoreVerificationError(.bundleIdMismatch, "the app receipt is for another app")
        }
        guard acceptedEnvironments.contains(payload.environment) else {
            throw AppStoreVerificationError(
                .environmentNotAccepted, "the app receipt comes from an App Store environment this server does not accept")
        }
        return payload
    }

    /// Step 3: the RSA PKCS #1 v1.5 signature over the payload's digest.
    private static func checkSignature(_ envelope: ReceiptEnvelope) throws(AppStoreVerificationError) {
        guard let key = _RSA.Signing.PublicKey(envelope.signer.publicKey) else {
            throw AppStoreVerificationError(.signatureInvalid, "the app receipt's signer certificate has no RSA key")
        }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: envelope.signature)
        let valid: Bool
        switch envelope.digest {
        case .sha1:
            valid = key.isValidSignature(signature, for: Insecure.SHA1.hash(data: envelope.payload), padding: .insecurePKCS1v1_5)
        case .sha256:
            valid = key.isValidSignature(signature, for: SHA256.hash(data: envelope.payload), padding: .insecurePKCS1v1_5)
        }
        guard valid else {
            throw AppStoreVerificationError(.signatureInvalid, "the app receipt's signature does not match its signer certificate")
        }
    }

    /// Steps 6 and 7: the signer's chain to a configured root at the creation date, and Apple's markers; returns
    /// the root it leads to.
    private func checkChain(_ envelope: ReceiptEnvelope, at time: Date) async throws(AppStoreVerificationError) -> Certificate {
        let signer = envelope.signer
        guard signer.notValidBefore <= time, time <= signer.notValidAfter else {
            throw AppStoreVerificationError(
                .certificateExpired, "the app receipt's signer certificate was not valid when the receipt was made")
        }
        // A signer that is itself a configured root (Xcode's self-signed StoreKit certificate) is a trust anchor:
        // nothing to build, and no Apple markers to carry.
        if rootCertificates.contains(signer) { return signer }
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            AppStoreMarkerExtensionsPolicy()
        }
        // The one embedded certificate named as the signer's issuer is the intermediate; a receipt naming two is
        // refused, so that the chain search has a single path to try.
        let issuers = envelope.certificates.filter { $0 != signer && $0.subject == signer.issuer }
        guard issuers.count <= 1 else {
            throw AppStoreVerificationError(.chainUntrusted, "the app receipt embeds several certificates for its signer's issuer")
        }
        let result = await verifier.validate(leaf: signer, intermediates: CertificateStore(issuers))
        guard case .validCertificate(let validated) = result else {
            throw AppStoreVerificationError(.chainUntrusted, "the app receipt's certificate chain does not lead to a receipt root")
        }
        let chain = Array(validated)
        guard signer.extensions[oid: AppStoreExtensionID.leaf] != nil else {
            throw AppStoreVerificationError(.leafOIDMissing, "the app receipt's signer is not a receipt-signing certificate")
        }
        guard chain.count >= 3, chain[1].extensions[oid: AppStoreExtensionID.intermediate] != nil else {
            throw AppStoreVerificationError(
                .intermediateOIDMissing, "the app receipt's signer is not issued by an Apple WWDR intermediate")
        }
        return chain[chain.count - 1]
    }
}
