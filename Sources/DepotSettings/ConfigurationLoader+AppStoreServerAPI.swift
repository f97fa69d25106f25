import DepotServices
import Crypto
import Foundation

/// Reading and checking the `appStoreServerAPI` section of `depot.json`.
extension ConfigurationLoader {
    /// The App Store Server API settings, or nil when the section is absent; every value is checked and the
    /// message names the field at fault. The private key is read and parsed here, so a bad key stops the start.
    static func appStoreServerAPISettings(
        _ section: ConfigurationFile.AppStoreServerAPI?, appBundleId: String, deployment: DeploymentEnvironment,
        directory: String, in file: String
    ) throws(ConfigurationError) -> AppStoreServerAPISettings? {
        guard let section else { return nil }
        let name = "appStoreServerAPI"
        guard let issuerId = section.issuerId, !issuerId.isEmpty, issuerId.utf8.count <= 128 else {
            throw ConfigurationError("\(file): \(name).issuerId must be the issuer id from App Store Connect")
        }
        guard let keyId = section.keyId, !keyId.isEmpty, keyId.utf8.count <= 64,
            keyId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else {
            throw ConfigurationError("\(file): \(name).keyId must be the key's id from App Store Connect (letters and digits)")
        }
        guard let keyPath = section.privateKeyPath, !keyPath.isEmpty else {
            throw ConfigurationError("\(file): \(name).privateKeyPath must name the key's .p8 file")
        }
        let resolved = resolve(keyPath, against: directory)
        guard let data = FileManager.default.contents(atPath: resolved), let pem = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("\(file): \(name).privateKeyPath: cannot read \(resolved)")
        }
        guard pem.contains("-----BEGIN PRIVATE KEY-----") else {
            throw ConfigurationError("\(file): \(name).privateKeyPath: \(resolved) is not a .p8 key (PKCS#8 PEM)")
        }
        guard (try? P256.Signing.PrivateKey(pemRepresentation: pem)) != nil else {
            throw ConfigurationError("\(file): \(name).privateKeyPath: \(resolved) is not an ES256 (P-256) private key")
        }
        let bundleId = section.bundleId ?? appBundleId
        guard !bundleId.isEmpty else { throw ConfigurationError("\(file): \(name).bundleId must not be empty") }
        let baseURLs = try baseURLs(section.baseURLs, deployment: deployment, in: file)
        let outbox = try outboxSettings(section.outbox, in: file)
        let timeout = section.timeoutSeconds ?? 30
        guard (1...300).contains(timeout) else {
            throw ConfigurationError("\(file): \(name).timeoutSeconds must be from 1 to 300, not \(timeout)")
        }
        let history = section.notificationHistory
        let notificationHistory = NotificationHistorySettings(
            intervalSeconds: history?.intervalSeconds ?? 3_600, overlapSeconds: history?.overlapSeconds ?? 3_600,
            lookbackSeconds: Self.seconds(ofDays: history?.lookbackDays ?? 7))
        guard (0...86_400).contains(notificationHistory.intervalSeconds) else {
            throw ConfigurationError("\(file): \(name).notificationHistory.intervalSeconds must be from 0 (off) to 86400")
        }
        guard (0...86_400).contains(notificationHistory.overlapSeconds) else {
            throw ConfigurationError("\(file): \(name).notificationHistory.overlapSeconds must be from 0 to 86400")
        }
        guard (1...180 * 86_400).contains(notificationHistory.lookbackSeconds) else {
            throw ConfigurationError("\(file): \(name).notificationHistory.lookbackDays must be from 1 to 180")
        }
        var settings = AppStoreServerAPISettings(
            issuerId: issuerId, keyId: keyId, privateKeyPath: resolved, privateKeyPEM: pem, bundleId: bundleId,
            baseURLs: baseURLs, timeoutSeconds: timeout, outbox: outbox, notificationHistory: notificationHistory)
        settings.sampleContentProvided = section.sampleContentProvided ?? false
        return settings
    }

    /// Apple's two base URLs when none are given; otherwise exactly those given, each an http(s) URL for a known
    /// environment (https only in production).
    private static func baseURLs(
        _ given: [String: String]?, deployment: DeploymentEnvironment, in file: String
    )
        throws(ConfigurationError) -> [String: String]
    {
        guard let given else {
            return [
                "Production": "https://api.storekit.itunes.apple.com",
                "Sandbox": "https://api.storekit-sandbox.itunes.apple.com",
            ]
        }
        for (environment, url) in given {
            guard AppStoreSettings.allEnvironments.contains(environment) else {
                throw ConfigurationError(
                    "\(file): appStoreServerAPI.baseURLs: \"\(environment)\" is not an App Store environment (Production, Sandbox, Xcode, LocalTesting)"
                )
            }
            _ = try serviceURL(url, setting: "appStoreServerAPI.baseURLs.\(environment)", deployment: deployment, in: file)
        }
        return given
    }

    /// The outbox settings of `section` (`appStoreServerAPI` or `googlePlay.developerAPI`), defaults filled in.
    static func outboxSettings(
        _ outbox: ConfigurationFile.AppStoreServerAPI.Outbox?, section: String = "appStoreServerAPI", in file: String
    )
        throws(ConfigurationError) -> StoreOutboxSettings
    {
        let settings = StoreOutboxSettings(
            pollIntervalMilliseconds: outbox?.pollIntervalMilliseconds ?? 1_000, batchSize: outbox?.batchSize ?? 20,
            leaseSeconds: outbox?.leaseSeconds ?? 120, baseDelaySeconds: outbox?.baseDelaySeconds ?? 5,
            maxDelaySeconds: outbox?.maxDelaySeconds ?? 3_600, retryPeriodSeconds: outbox?.retryPeriodSeconds ?? 3 * 86_400)
        let prefix = "\(file): \(section).outbox."
        guard (50...60_000).contains(settings.pollIntervalMilliseconds) else {
            throw ConfigurationError(prefix + "pollIntervalMilliseconds must be from 50 to 60000")
        }
        guard (1...1_000).contains(settings.batchSize) else { throw ConfigurationError(prefix + "batchSize must be from 1 to 1000") }
        guard (1...86_400).contains(settings.leaseSeconds) else {
            throw ConfigurationError(prefix + "leaseSeconds must be from 1 to 86400")
        }
        guard settings.baseDelaySeconds >= 0, settings.maxDelaySeconds >= settings.baseDelaySeconds,
            settings.maxDelaySeconds <= 86_400
        else {
            throw ConfigurationError(prefix + "baseDelaySeconds must be at least 0 and at most maxDelaySeconds (at most 86400)")
        }
        guard settings.retryPeriodSeconds >= 1 else { throw ConfigurationError(prefix + "retryPeriodSeconds must be positive") }
        return settings
    }

    /// `days` in seconds; `Int64.max` (out of every allowed range) when that does not fit.
    static func seconds(ofDays days: Int64) -> Int64 {
        let (seconds, overflow) = days.multipliedReportingOverflow(by: 86_400)
        return overflow ? .max : seconds
    }
}
