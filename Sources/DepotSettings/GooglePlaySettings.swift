import DepotServices
import DepotTrust

/// Which Google Play purchases are accepted (`googlePlay` in `depot.json`); without the section, none are.
package struct GooglePlaySettings: Sendable {
    /// The app's package name (`com.example.game`): a purchase of another app is refused.
    package var packageName: String
    /// The app's licensing public keys, read (several while a key is rotated).
    package var licenseKeys: [GooglePlayLicenseKey]
    /// Play product id → Depot product id; one Depot product may be sold in both stores.
    package var products: [String: String]
    /// How Depot calls the Google Play Developer API; nil: it does not, and the app acknowledges.
    package var developerAPI: GooglePlayDeveloperAPISettings?
    /// SHA-256 (lowercase hex) of each token a notification push URL may carry; empty: notifications are off.
    package var notificationTokenDigests: [String] = []
    /// Pub/Sub's authenticated push (OIDC), when configured.
    package var notificationOIDC: GooglePushOIDCSettings?
    /// Whether test purchases (license testers', judged environment `Test`) are accepted:
    /// `googlePlay.acceptTestPurchases`, by default true outside production and false in production, where a test
    /// purchase is refused (403 `environment-not-accepted`) as the App Store's Sandbox is.
    package var acceptsTestPurchases = true
    /// Play product id → its rent option (`googlePlay.products` entries with `rental`).
    package var rentals: [String: GooglePlayRentOption] = [:]

    /// Settings as read.
    package init(
        packageName: String, licenseKeys: [GooglePlayLicenseKey], products: [String: String],
        developerAPI: GooglePlayDeveloperAPISettings? = nil
    ) {
        self.packageName = packageName
        self.licenseKeys = licenseKeys
        self.products = products
        self.developerAPI = developerAPI
    }

    /// The verifier these settings describe.
    package var verifier: GooglePlayVerifier {
        GooglePlayVerifier(
            packageName: packageName, keys: licenseKeys, products: products, acceptsTestPurchases: acceptsTestPurchases,
            rentals: rentals)
    }
}

/// `googlePlay.notifications.oidc`: a push is accepted when its `Authorization: Bearer` is an OIDC token Google
/// signed for `audience` (and, when given, for `serviceAccountEmail`, the push subscription's account).
package struct GooglePushOIDCSettings: Sendable, Equatable {
    /// The audience the push subscription puts in its tokens.
    package var audience: String
    /// The push subscription's service account; nil accepts any Google-signed token for the audience.
    package var serviceAccountEmail: String?
    /// Where Google's signing keys are (its JWKS), or another's for tests.
    package var certificatesURL: String

    /// Settings as read.
    package init(audience: String, serviceAccountEmail: String?, certificatesURL: String) {
        self.audience = audience
        self.serviceAccountEmail = serviceAccountEmail
        self.certificatesURL = certificatesURL
    }
}
