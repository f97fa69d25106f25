import Foundation
import SwiftASN1
import X509

/// Verifies App Store signed data the way Apple's App Store Server Library (`SignedDataVerifier`) does.
///
/// A token is accepted when, in this order:
/// 1. it is a JWS compact serialization whose header has `alg` `ES256` and no `crit`;
/// 2. its header's `x5c` holds exactly three standard-base64 DER certificates: leaf, intermediate, root;
/// 3. the signature (raw r||s over `header.payload`) verifies with the leaf's P-256 key;
/// 4. the payload's `signedDate` (milliseconds since 1970) is not later than the verifier's clock plus
///    ``AppStoreClockSkew``;
/// 5. every presented certificate was valid at that `signedDate`;
/// 6. swift-certificates builds leaf → intermediate → root under RFC 5280 (signatures, basic constraints, name
///    constraints) at that same time, where the root is a configured trusted root and is the presented root
///    itself: nothing between the intermediate and the root, as Apple's library requires;
/// 7. the leaf carries extension 1.2.840.113635.100.6.11.1 and the intermediate 1.2.840.113635.100.6.2.1;
/// 8. the payload decodes, its values are consistent (for a transaction: ids, `expiresDate` not before
///    `purchaseDate`, `purchaseDate` not after `signedDate`), its `bundleId` is the configured one and its
///    `environment` is accepted.
///
/// Verification is offline, as Apple's library is with online checks turned off: no OCSP or CRL request is
/// made, so a revoked signing certificate is not noticed. Certificates are judged at the payload's
/// `signedDate` rather than now (Apple's data stays verifiable after its leaf expires), which is why that date
/// must not lie in the future.
///
/// Each step refuses with its own ``AppStoreVerificationError/Code``. A chain that passed steps 2, 5, 6 and 7 is
/// kept (``VerifiedChainCache``): a later token presenting the same three certificates is checked by steps 1, 3, 4
/// and 8 and its `signedDate` within the window in which the three are valid, the only time-dependent part of
/// steps 5 and 6.
package struct AppStoreVerifier: Sendable {
    private let roots: CertificateStore
    /// The app's bundle id every transaction and notification must carry.
    package let bundleId: String
    /// The `environment` values accepted (see ``AppStoreEnvironment``).
    package let acceptedEnvironments: Set<String>
    /// The current time, read once per token to bound its `signedDate`.
    private let now: @Sendable () -> Date
    /// Chains this verifier already built to a trusted root.
    private let chains = VerifiedChainCache()

    /// How many verified chains are kept (a token presenting one of them is checked by its signature and date).
    package var verifiedChainCount: Int { chains.count }

    /// Creates a verifier trusting `trustedRootsDER` (e.g. Apple Root CA - G3, or a development root).
    ///
    /// Fails with `configuration-invalid` when no root is given, the bundle id or the environments are empty,
    /// and with `certificate-malformed` when a root is not a DER certificate. `now` is the clock a payload's
    /// `signedDate` is bounded by; tests set it to verify data signed long ago or in the future.
    package init(
        trustedRootsDER: [[UInt8]], bundleId: String, acceptedEnvironments: Set<String>,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(AppStoreVerificationError) {
        guard !trustedRootsDER.isEmpty else {
            throw AppStoreVerificationError(.configurationInvalid, "no trusted root certificate is configured")
        }
        guard !bundleId.isEmpty else {
            throw AppStoreVerificationError(.configurationInvalid, "no app bundle id is configured")
        }
        guard !acceptedEnvironments.isEmpty else {
            throw AppStoreVerificationError(.configurationInvalid, "no App Store environment is accepted")
        }
        var roots: [Certificate] = []
        for (index, der) in trustedRootsDER.enumerated() {
            guard let root = try? Certificate(derEncoded: der) else {
                throw AppStoreVerificationError(
                    .certificateMalformed, "trusted root \(index + 1) is not a DER certificate")
            }
            roots.append(root)
        }
        self.roots = CertificateStore(roots)
        self.bundleId = bundleId
        self.acceptedEnvironments = acceptedEnvironments
        self.now = now
    }

    /// Verifies and decodes a signed transaction (`JWSTransaction`).
    package func verifyTransaction(_ jws: String) async throws(AppStoreVerificationError) -> SignedTransaction {
        let transaction = try SignedTransaction(payload: try await verifiedPayload(jws, kind: "transaction"))
        try checkApp(bundleId: transaction.bundleId, environment: transaction.environment)
        return transaction
    }

    /// Verifies and decodes signed renewal info (`JWSRenewalInfo`); it has no bundle id, so only its
    /// environment is checked.
    package func verifyRenewalInfo(_ jws: String) async throws(AppStoreVerificationError) -> SignedRenewalInfo {
        let renewalInfo = try SignedRenewalInfo(payload: try await verifiedPayload(jws, kind: "renewal info"))
        try checkEnvironment(renewalInfo.environment)
        return renewalInfo
    }

    /// Verifies and decodes an App Store Server Notification V2 (`signedPayload`), then verifies and decodes
    /// the signed transaction and renewal info it carries, each at its own `signedDate`.
    package func verifyNotification(_ jws: String) async throws(AppStoreVerificationError) -> SignedNotification {
        let payload = try await verifiedPayload(jws, kind: "notification")
        var notification = try SignedNotification(payload: payload)
        try checkApp(bundleId: notification.bundleId, environment: notification.environment)
        let nested = try SignedNotification.nested(in: payload)
        if let signedTransactionInfo = nested.signedTransactionInfo {
            notification.transaction = try await verifyTransaction(signedTransactionInfo)
        }
        if let signedRenewalInfo = nested.signedRenewalInfo {
            notification.renewalInfo = try await verifyRenewalInfo(signedRenewalInfo)
        }
        return notification
    }

    /// Steps 1 to 7: the payload object of a token whose signature and chain hold.
    private func verifiedPayload(
        _ jws: String, kind: String
    ) async throws(AppStoreVerificationError) -> [String: JSONValue] {
        let token = try CompactJWS(parsing: jws)
        if token.header["crit"] != nil {
            // RFC 7515 §4.1.11: extensions listed in crit must be understood; Apple sends none.
            throw AppStoreVerificationError(.jwsMalformed, "the JWS header lists critical extensions")
        }
        guard case .string("ES256")? = token.header["alg"] else {
            throw AppStoreVerificationError(.jwsUnsupportedAlgorithm, "the JWS algorithm is not ES256")
        }
        let chainKey = VerifiedChainCache.key(of: token.header)
        if let chainKey, let known = chains.entry(chainKey) {
            // A chain built before: the signature and the date are what is left to check. A date outside the chain's
            // window goes the whole way below, to be refused with its own reason.
            try PresentedChain.checkSignature(of: token, with: known.leafKey)
            let (payload, signedAt) = try signedPayload(token, kind: kind)
            if known.validFrom <= signedAt && signedAt <= known.validUntil { return payload }
        }
        let chain = try PresentedChain(header: token.header)
        try chain.checkSignature(of: token)
        let (payload, signedAt) = try signedPayload(token, kind: kind)
        try chain.checkValidity(at: signedAt)
        try await chain.checkTrust(roots: roots, at: signedAt)
        try chain.checkAppleExtensions()
        if let chainKey {
            let validity = chain.validity
            chains.keep(.init(leafKey: try chain.leafKey(), validFrom: validity.from, validUntil: validity.until), as: chainKey)
        }
        return payload
    }

    /// The payload object of a token whose signature holds, and its `signedDate` (steps 4 and 8's parsing).
    private func signedPayload(
        _ token: CompactJWS, kind: String
    ) throws(AppStoreVerificationError) -> ([String: JSONValue], Date) {
        guard let payload = JSONValue.parseObject(token.payload) else {
            throw AppStoreVerificationError(.payloadMalformed, "the \(kind) payload is not a JSON object")
        }
        let signedDate = try PayloadFields(object: payload, kind: kind).date("signedDate")
        try checkNotInFuture(signedDate, kind: kind)
        return (payload, Date(timeIntervalSince1970: Double(signedDate) / 1000))
    }

    /// Step 4: `signedDate` is at most the clock plus the allowed skew.
    private func checkNotInFuture(_ signedDate: Int64, kind: String) throws(AppStoreVerificationError) {
        let nowMilliseconds = (now().timeIntervalSince1970 * 1000).rounded(.down)
        let latest = Double(AppStoreClockSkew.milliseconds) + nowMilliseconds
        guard Double(signedDate) <= latest else {
            throw AppStoreVerificationError(.signedInFuture, "the \(kind) claims to be signed in the future")
        }
    }

    private func checkApp(bundleId: String, environment: String) throws(AppStoreVerificationError) {
        guard bundleId == self.bundleId else {
            throw AppStoreVerificationError(.bundleIdMismatch, "the signed data is for another app")
        }
        try checkEnvironment(environment)
    }

    private func checkEnvironment(_ environment: String) throws(AppStoreVerificationError) {
        guard acceptedEnvironments.contains(environment) else {
            throw AppStoreVerificationError(
                .environmentNotAccepted,
                "the signed data comes from an App Store environment this server does not accept")
        }
    }
}
