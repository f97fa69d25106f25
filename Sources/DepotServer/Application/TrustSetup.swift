import DepotSettings
import DepotTrust
import Foundation
import Logging

/// Builds the App Store verifier from configuration: the configured roots, plus the development root
/// under the data directory when the configuration trusts it.
package enum TrustSetup {
    /// Directory of the development certificate authority under the data directory.
    package static func developmentDirectory(_ configuration: DepotConfiguration) -> String {
        (configuration.dataDirectory as NSString).appendingPathComponent("dev-ca")
    }

    /// Directory of the development receipt authority (an RSA chain, as Apple's receipt chain is) under the data
    /// directory.
    package static func developmentReceiptDirectory(_ configuration: DepotConfiguration) -> String {
        (configuration.dataDirectory as NSString).appendingPathComponent("dev-receipt-ca")
    }

    static func verifier(_ configuration: DepotConfiguration, logger: Logger) throws -> AppStoreVerifier {
        var roots: [[UInt8]] = []
        for path in configuration.appStore.trustedRootPaths {
            guard let data = FileManager.default.contents(atPath: path), let der = certificateDER(Array(data)) else {
                throw ConfigurationError("cannot read the trusted root certificate \(path) (DER or PEM)")
            }
            roots.append(der)
        }
        if configuration.appStore.trustDevelopmentRoot {
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: developmentDirectory(configuration))
            roots.append(authority.rootDER)
            logger.warning(
                "DEVELOPMENT TRUST: transactions signed by the development root in \(developmentDirectory(configuration)) are accepted; never use this configuration in production"
            )
        }
        let nonProduction = configuration.appStore.nonProductionEnvironments
        if configuration.environment == .production, !nonProduction.isEmpty {
            logger.warning(
                "NON-PRODUCTION TRANSACTIONS ACCEPTED IN PRODUCTION: \(nonProduction.joined(separator: ", ")) transactions are accepted (appStore.allowNonProductionEnvironments); their purchases cost nothing"
            )
        }
        if configuration.environment == .production, let googlePlay = configuration.googlePlay, googlePlay.acceptsTestPurchases {
            logger.warning(
                "GOOGLE PLAY TEST PURCHASES ACCEPTED IN PRODUCTION: license testers' purchases are accepted (googlePlay.acceptTestPurchases); they cost nothing"
            )
        }
        return try AppStoreVerifier(
            trustedRootsDER: roots, bundleId: configuration.appBundleId,
            acceptedEnvironments: configuration.appStore.environments)
    }

    /// The StoreKit 1 app receipt verifier: the configured receipt roots (`appStore.receiptRoots`), plus the
    /// development receipt root when the configuration trusts the development root; nil when there are none.
    /// Making the development receipt root (three RSA keys) takes a moment, once per data directory.
    static func receiptVerifier(_ configuration: DepotConfiguration) throws -> AppReceiptVerifier? {
        var roots: [[UInt8]] = []
        for path in configuration.appStore.receiptRootPaths {
            guard let data = FileManager.default.contents(atPath: path), let der = certificateDER(Array(data)) else {
                throw ConfigurationError("cannot read the receipt root certificate \(path) (DER or PEM)")
            }
            roots.append(der)
        }
        if configuration.appStore.trustDevelopmentRoot {
            roots.append(try DevelopmentReceiptAuthority.loadOrCreate(directory: developmentReceiptDirectory(configuration)).rootDER)
        }
        guard !roots.isEmpty else { return nil }
        // Only Apple signs Production receipts, unless the development root is trusted (never in production).
        return try AppReceiptVerifier(
            trustedRootsDER: roots, bundleId: configuration.appBundleId, acceptedEnvironments: configuration.appStore.environments,
            trustsDevelopmentProduction: configuration.appStore.trustDevelopmentRoot,
            requiresDevice: configuration.appStore.requireReceiptDevice)
    }

    /// DER bytes from a DER or PEM certificate file.
    static func certificateDER(_ bytes: [UInt8]) -> [UInt8]? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("-----BEGIN CERTIFICATE-----") else { return bytes.first == 0x30 ? bytes : nil }
        let body =
            text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst().first?
            .components(separatedBy: "-----END CERTIFICATE-----").first ?? ""
        return Data(base64Encoded: body.filter { !$0.isWhitespace }).map(Array.init)
    }
}
