import DepotCore
import DepotGooglePlay
import DepotServices
import DepotTrust
import Foundation

extension ConfigurationLoader {
    /// The `googlePlay` section: `packageName` (Android's rule: two or more dot-separated segments of letters,
    /// digits and `_`, each starting with a letter), `licenseKeys` (at least one base64 key, as Play Console shows
    /// it), `products` (Play product id → Depot product id, at least one) and `acceptTestPurchases` (default: true
    /// outside production only). Nil without the section.
    static func googlePlaySettings(
        _ section: ConfigurationFile.GooglePlay?, deployment: DeploymentEnvironment, directory: String, in file: String
    ) throws(ConfigurationError) -> GooglePlaySettings? {
        guard let section else { return nil }
        guard let packageName = section.packageName, isPackageName(packageName) else {
            throw ConfigurationError(
                "\(file): googlePlay.packageName must be the app's package name, such as com.example.game")
        }
        let texts = section.licenseKeys ?? []
        guard !texts.isEmpty else {
            throw ConfigurationError(
                "\(file): googlePlay.licenseKeys must hold the app's licensing key (Play Console: Monetization setup, Licensing)")
        }
        var keys: [GooglePlayLicenseKey] = []
        for (index, text) in texts.enumerated() {
            do {
                keys.append(try GooglePlayLicenseKey(base64: text))
            } catch {
                throw ConfigurationError("\(file): googlePlay.licenseKeys[\(index)] \(error.reason)")
            }
        }
        let entries = section.products ?? [:]
        guard !entries.isEmpty else {
            throw ConfigurationError("\(file): googlePlay.products must map at least one Play product id to a product id")
        }
        let (products, rentals) = try productEntries(entries, in: file)
        for (playId, productId) in products.sorted(by: { $0.key < $1.key }) {
            guard !playId.isEmpty, playId.utf8.count <= 256 else {
                throw ConfigurationError("\(file): googlePlay.products has a Play product id that is empty or longer than 256 bytes")
            }
            guard Identifier.isAcceptable(productId) else {
                throw ConfigurationError(
                    "\(file): googlePlay.products.\(playId) names \"\(productId)\", which is not \(Identifier.rule())")
            }
        }
        var settings = GooglePlaySettings(
            packageName: packageName, licenseKeys: keys, products: products,
            developerAPI: try developerAPISettings(section.developerAPI, deployment: deployment, directory: directory, in: file))
        settings.acceptsTestPurchases = section.acceptTestPurchases ?? (deployment != .production)
        settings.rentals = rentals
        if settings.developerAPI == nil,
            let named = rentals.sorted(by: { $0.key < $1.key }).first(where: { $0.value.purchaseOptionId != nil })
        {
            throw ConfigurationError(
                "\(file): googlePlay.products.\(named.key).rental.purchaseOptionId needs googlePlay.developerAPI: only Google tells which purchase option a purchase was bought with"
            )
        }
        if let notifications = section.notifications {
            guard settings.developerAPI != nil else {
                throw ConfigurationError(
                    "\(file): googlePlay.notifications needs googlePlay.developerAPI: a notification is checked with Google, never trusted")
            }
            (settings.notificationTokenDigests, settings.notificationOIDC) = try notificationSettings(
                notifications, deployment: deployment, in: file)
        }
        return settings
    }

    /// `googlePlay.developerAPI`: the service account's key file (read and checked here, so a bad key stops the
    /// start), Google's base and token URLs unless others are given (https only in production), the timeout,
    /// the outbox and the voided purchases poll. Nil without the section.
    static func developerAPISettings(
        _ section: ConfigurationFile.GooglePlay.DeveloperAPI?, deployment: DeploymentEnvironment, directory: String,
        in file: String
    ) throws(ConfigurationError) -> GooglePlayDeveloperAPISettings? {
        guard let section else { return nil }
        let name = "googlePlay.developerAPI"
        guard let keyPath = section.serviceAccountKeyPath, !keyPath.isEmpty else {
            throw ConfigurationError("\(file): \(name).serviceAccountKeyPath must name the service account's JSON key file")
        }
        let resolved = resolve(keyPath, against: directory)
        let account: GooglePlayServiceAccount
        do {
            account = try GooglePlayServiceAccount(keyFilePath: resolved)
            _ = try GooglePlayAccessTokens(account: account)
        } catch {
            throw ConfigurationError("\(file): \(name).serviceAccountKeyPath: \(resolved): \(error.description)")
        }
        let baseURL = try serviceURL(
            section.baseURL ?? GooglePlayDeveloperAPIClient.googleBaseURL, setting: "\(name).baseURL", deployment: deployment,
            in: file)
        _ = try serviceURL(section.tokenURL ?? account.tokenURI, setting: "\(name).tokenURL", deployment: deployment, in: file)
        let timeout = section.timeoutSeconds ?? 30
        guard (1...300).contains(timeout) else {
            throw ConfigurationError("\(file): \(name).timeoutSeconds must be from 1 to 300, not \(timeout)")
        }
        let voided = section.voidedPurchases
        let poll = VoidedPurchasePollSettings(
            intervalSeconds: voided?.intervalSeconds ?? 3_600, overlapSeconds: voided?.overlapSeconds ?? 3_600,
            lookbackSeconds: Self.seconds(ofDays: voided?.lookbackDays ?? 30))
        guard (0...86_400).contains(poll.intervalSeconds) else {
            throw ConfigurationError("\(file): \(name).voidedPurchases.intervalSeconds must be from 0 (off) to 86400")
        }
        guard (0...86_400).contains(poll.overlapSeconds) else {
            throw ConfigurationError("\(file): \(name).voidedPurchases.overlapSeconds must be from 0 to 86400")
        }
        guard (1...30 * 86_400).contains(poll.lookbackSeconds) else {
            throw ConfigurationError("\(file): \(name).voidedPurchases.lookbackDays must be from 1 to 30")
        }
        var settings = GooglePlayDeveloperAPISettings(
            account: account, serviceAccountKeyPath: resolved, baseURL: baseURL, tokenURL: section.tokenURL,
            timeoutSeconds: timeout, outbox: try outboxSettings(section.outbox, section: name, in: file), voidedPurchases: poll)
        settings.sampleContentProvided = section.sampleContentProvided ?? false
        return settings
    }

    /// `googlePlay.notifications`: the push URL tokens' digests and the authenticated push's audience, account
    /// and key URL; at least one of the two.
    static func notificationSettings(
        _ notifications: ConfigurationFile.GooglePlay.Notifications, deployment: DeploymentEnvironment, in file: String
    ) throws(ConfigurationError) -> (tokenDigests: [String], oidc: GooglePushOIDCSettings?) {
        let digests = try tokenDigests(notifications.tokenSHA256, setting: "googlePlay.notifications.tokenSHA256", in: file)
        var oidcSettings: GooglePushOIDCSettings?
        if let oidc = notifications.oidc {
            guard let audience = oidc.audience, !audience.isEmpty, audience.utf8.count <= 2048 else {
                throw ConfigurationError("\(file): googlePlay.notifications.oidc.audience must be the push subscription's audience")
            }
            let url = try serviceURL(
                oidc.certificatesURL ?? GooglePushTokenVerifier.googleCertificatesURL,
                setting: "googlePlay.notifications.oidc.certificatesURL", deployment: deployment, in: file)
            oidcSettings = GooglePushOIDCSettings(
                audience: audience, serviceAccountEmail: oidc.serviceAccountEmail.flatMap { $0.isEmpty ? nil : $0 },
                certificatesURL: url)
        }
        guard !digests.isEmpty || oidcSettings != nil else {
            throw ConfigurationError(
                "\(file): googlePlay.notifications needs tokenSHA256 (a token in the push URL) or oidc (authenticated push)")
        }
        return (digests, oidcSettings)
    }

    /// Whether `name` follows Android's rule for an application id.
    static func isPackageName(_ name: String) -> Bool {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2, name.utf8.count <= 255 else { return false }
        return segments.allSatisfy { segment in
            guard let first = segment.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
            return segment.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        }
    }
}
