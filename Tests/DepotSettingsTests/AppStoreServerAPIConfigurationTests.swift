@testable import DepotServerTestSupport
import DepotSettings
import Crypto
import DepotServices
import Foundation
import Testing

/// The `appStoreServerAPI` section of `depot.json`: off when absent, Apple's base URLs by default, every bad
/// value refused at load with a message naming the field.
@Suite("Configuration: appStoreServerAPI")
struct AppStoreServerAPIConfigurationTests {
    /// Loads a test configuration with `section` as the `appStoreServerAPI` member (and `extra` members).
    static func load(_ section: String?, extra: String = "", in scratch: ScratchDirectory) throws -> DepotConfiguration {
        var settings = section.map { "\"appStoreServerAPI\": " + $0 } ?? ""
        if !extra.isEmpty { settings += (settings.isEmpty ? "" : ", ") + extra }
        try LiveServer.writeConfiguration(in: scratch, idleTimeoutSeconds: 5, settings: settings)
        return try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
    }

    static func withKey(_ name: String = #function, _ body: (ScratchDirectory) throws -> Void) throws {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        try scratch.write("Config/AuthKey_TEST123456.p8", P256.Signing.PrivateKey().pemRepresentation)
        try body(scratch)
    }

    @Test func absentMeansOffAndAMinimalSectionTakesApplesDefaults() throws {
        try Self.withKey { scratch in
            #expect(try Self.load(nil, in: scratch).appStoreServerAPI == nil)
            let settings = try #require(
                try Self.load(#"{"issuerId": "issuer", "keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8"}"#, in: scratch)
                    .appStoreServerAPI)
            #expect(settings.bundleId == "com.example.depot.test")
            #expect(settings.privateKeyPath == scratch.path + "/Config/AuthKey_TEST123456.p8")
            #expect(settings.privateKeyPEM.contains("BEGIN PRIVATE KEY"))
            #expect(
                settings.baseURLs == [
                    "Production": "https://api.storekit.itunes.apple.com", "Sandbox": "https://api.storekit-sandbox.itunes.apple.com",
                ])
            #expect(settings.sends(environment: "Sandbox") && !settings.sends(environment: "Xcode"))
            #expect(settings.timeoutSeconds == 30 && settings.outbox.leaseSeconds == 120)
            let given = try #require(
                try Self.load(
                    #"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8", "bundleId": "com.other", "baseURLs": {"Xcode": "http://127.0.0.1:9"}, "outbox": {"retryPeriodSeconds": 60}}"#,
                    in: scratch
                ).appStoreServerAPI)
            #expect(given.bundleId == "com.other")
            #expect(given.baseURLs == ["Xcode": "http://127.0.0.1:9"])
            #expect(given.outbox.retryPeriodSeconds == 60)
        }
    }

    @Test(arguments: [
        (#"{"keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8"}"#, "appStoreServerAPI.issuerId"),
        (#"{"issuerId": "i", "keyId": "", "privateKeyPath": "AuthKey_TEST123456.p8"}"#, "appStoreServerAPI.keyId"),
        (#"{"issuerId": "i", "keyId": "a/b", "privateKeyPath": "AuthKey_TEST123456.p8"}"#, "appStoreServerAPI.keyId"),
        (#"{"issuerId": "i", "keyId": "TEST123456"}"#, "appStoreServerAPI.privateKeyPath must name"),
        (#"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "missing.p8"}"#, "cannot read"),
        (#"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "products.json"}"#, "is not a .p8 key"),
        (
            #"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8", "baseURLs": {"Staging": "https://x"}}"#,
            "\"Staging\" is not an App Store environment"
        ),
        (
            #"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8", "baseURLs": {"Sandbox": "ftp://x"}}"#,
            "baseURLs.Sandbox must be"
        ),
        (
            #"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8", "baseURLs": {"Sandbox": "https://x?y=1"}}"#,
            "baseURLs.Sandbox must be"
        ),
        (#"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8", "timeoutSeconds": 0}"#, "timeoutSeconds"),
        (
            #"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8", "outbox": {"leaseSeconds": 0}}"#,
            "outbox.leaseSeconds"
        ),
        (
            #"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8", "outbox": {"baseDelaySeconds": 10, "maxDelaySeconds": 5}}"#,
            "outbox.baseDelaySeconds"
        ),
        (
            #"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8", "outbox": {"pollIntervalMilliseconds": 1}}"#,
            "outbox.pollIntervalMilliseconds"
        ),
        (
            #"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8", "outbox": {"retryPeriodSeconds": 0}}"#,
            "outbox.retryPeriodSeconds"
        ),
        (#"{"issuerId": 7}"#, "appStoreServerAPI.issuerId"),
    ])
    func badSectionsAreNamed(section: String, expected: String) throws {
        try Self.withKey { scratch in
            let error = #expect(throws: ConfigurationError.self) { try Self.load(section, in: scratch) }
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
        }
    }

    @Test func aKeyThatIsNotP256IsRefusedAtLoad() throws {
        try Self.withKey { scratch in
            try scratch.write("Config/AuthKey_TEST123456.p8", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
            let error = #expect(throws: ConfigurationError.self) {
                try Self.load(#"{"issuerId": "i", "keyId": "TEST123456", "privateKeyPath": "AuthKey_TEST123456.p8"}"#, in: scratch)
            }
            #expect(error?.message.contains("is not an ES256 (P-256) private key") == true, "\(error?.message ?? "")")
        }
    }
}
