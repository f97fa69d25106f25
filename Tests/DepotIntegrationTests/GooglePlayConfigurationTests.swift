@testable import DepotServerTestSupport
import DepotGooglePlayDouble
import DepotServices
import DepotSettings
import DepotTestSupport
import Foundation
import Testing

/// `googlePlay` in `depot.json`: off without it, read with it, and each fault refused by the setting's name.
@Suite("Configuration: Google Play")
struct GooglePlayConfigurationTests {
    static func section(
        packageName: String = "\"com.example.game\"", keys: String, products: String = "{\"level1\": \"com.example.level1\"}"
    )
        -> String
    {
        "\"googlePlay\": {\"packageName\": \(packageName), \"licenseKeys\": \(keys), \"products\": \(products)}"
    }

    @Test func withoutTheSectionNothingIsAccepted() throws {
        #expect(try LiveServer.loadConfiguration("").googlePlay == nil)
    }

    @Test func theSectionIsRead() throws {
        let one = try GooglePlayTestSigner(), two = try GooglePlayTestSigner()
        let configuration = try LiveServer.loadConfiguration(
            Self.section(
                keys: "[\"\(one.publicKeyBase64)\", \"\(two.publicKeyBase64)\"]",
                products: "{\"level1\": \"com.example.level1\", \"gems_500\": \"com.example.coins\"}"))
        let settings = try #require(configuration.googlePlay)
        #expect(settings.packageName == "com.example.game")
        #expect(settings.licenseKeys.count == 2)
        #expect(settings.products == ["level1": "com.example.level1", "gems_500": "com.example.coins"])
    }

    @Test func faultsAreRefusedByName() throws {
        let key = try GooglePlayTestSigner().publicKeyBase64
        let cases: [(String, String)] = [
            (Self.section(packageName: "\"game\"", keys: "[\"\(key)\"]"), "googlePlay.packageName"),
            (Self.section(packageName: "\"com.1example.game\"", keys: "[\"\(key)\"]"), "googlePlay.packageName"),
            (Self.section(keys: "[]"), "googlePlay.licenseKeys must hold"),
            (Self.section(keys: "[\"not base64!\"]"), "googlePlay.licenseKeys[0] is not base64"),
            (Self.section(keys: "[\"\(key)\", \"MAMCAQA=\"]"), "googlePlay.licenseKeys[1] is not an RSA public key"),
            (Self.section(keys: "[\"\(key)\"]", products: "{}"), "googlePlay.products must map"),
            (Self.section(keys: "[\"\(key)\"]", products: "{\"level1\": \"../x\"}"), "googlePlay.products.level1 names"),
        ]
        for (settings, expected) in cases {
            let message = LiveServer.configurationRefusal(settings)
            #expect(message?.contains(expected) == true, "\(expected): \(message ?? "accepted")")
        }
    }
}

/// `googlePlay.developerAPI`: read with the double's service account, and each fault refused by its name.
@Suite("Configuration: Google Play Developer API")
struct GooglePlayDeveloperAPIConfigurationTests {
    static func section(_ key: String, developerAPI: String) -> String {
        "\"googlePlay\": {\"packageName\": \"com.example.game\", \"licenseKeys\": [\"\(key)\"], "
            + "\"products\": {\"level1\": \"com.example.level1\"}, \"developerAPI\": \(developerAPI)}"
    }

    @Test func theSectionIsReadAndEachFaultRefusedByName() async throws {
        let key = try GooglePlayTestSigner().publicKeyBase64
        try await GooglePlayDoubleFixture.with { play in
            let path = try #require(play.account.keyFilePath)
            let read = try LiveServer.loadConfiguration(
                Self.section(key, developerAPI: "{\"serviceAccountKeyPath\": \"\(path)\", \"voidedPurchases\": {\"intervalSeconds\": 60}}"))
            let settings = try #require(read.googlePlay?.developerAPI)
            #expect(settings.baseURL == "https://androidpublisher.googleapis.com")
            #expect(settings.serviceAccountKeyPath == path)
            #expect(settings.voidedPurchases.intervalSeconds == 60)
            #expect(settings.voidedPurchases.lookbackSeconds == 30 * 86_400)
            #expect(settings.outbox.retryPeriodSeconds == 3 * 86_400)

            let scratch = try ScratchDirectory("developer-api-faults")
            defer { scratch.remove() }
            try scratch.write("user.json", Array(#"{"type": "authorized_user", "client_id": "x"}"#.utf8))
            let cases: [(String, String)] = [
                ("{}", "googlePlay.developerAPI.serviceAccountKeyPath must name"),
                ("{\"serviceAccountKeyPath\": \"/nonexistent/key.json\"}", "cannot be read"),
                ("{\"serviceAccountKeyPath\": \"\(scratch.path)/user.json\"}", "not service_account"),
                ("{\"serviceAccountKeyPath\": \"\(path)\", \"baseURL\": \"ftp://example.com\"}", "googlePlay.developerAPI.baseURL must be"),
                ("{\"serviceAccountKeyPath\": \"\(path)\", \"timeoutSeconds\": 0}", "googlePlay.developerAPI.timeoutSeconds"),
                (
                    "{\"serviceAccountKeyPath\": \"\(path)\", \"voidedPurchases\": {\"lookbackDays\": 31}}",
                    "googlePlay.developerAPI.voidedPurchases.lookbackDays"
                ),
                ("{\"serviceAccountKeyPath\": \"\(path)\", \"outbox\": {\"batchSize\": 0}}", "googlePlay.developerAPI.outbox.batchSize"),
            ]
            for (developerAPI, expected) in cases {
                let message = LiveServer.configurationRefusal(Self.section(key, developerAPI: developerAPI))
                #expect(message?.contains(expected) == true, "\(expected): \(message ?? "accepted")")
            }

            // Notifications: checked with Google, so only beside the Developer API; digests as the other tokens'.
            let digest = String(repeating: "ab", count: 32)
            let withAPI = Self.section(key, developerAPI: "{\"serviceAccountKeyPath\": \"\(path)\"}")
            let notifying = try LiveServer.loadConfiguration(
                withAPI.replacingOccurrences(
                    of: "\"googlePlay\": {", with: "\"googlePlay\": {\"notifications\": {\"tokenSHA256\": [\"\(digest)\"]}, "))
            #expect(notifying.googlePlay?.notificationTokenDigests == [digest])
            let notificationCases: [(String, String)] = [
                (
                    GooglePlayConfigurationTests.section(keys: "[\"\(key)\"]")
                        .replacingOccurrences(
                            of: "\"googlePlay\": {", with: "\"googlePlay\": {\"notifications\": {\"tokenSHA256\": [\"\(digest)\"]}, "),
                    "googlePlay.notifications needs googlePlay.developerAPI"
                ),
                (
                    withAPI.replacingOccurrences(
                        of: "\"googlePlay\": {", with: "\"googlePlay\": {\"notifications\": {\"tokenSHA256\": [\"AB\"]}, "),
                    "googlePlay.notifications.tokenSHA256 entries"
                ),
                (
                    withAPI.replacingOccurrences(
                        of: "\"googlePlay\": {",
                        with: "\"googlePlay\": {\"notifications\": {\"oidc\": {\"serviceAccountEmail\": \"a@b\"}}, "),
                    "googlePlay.notifications.oidc.audience"
                ),
                (
                    withAPI.replacingOccurrences(
                        of: "\"googlePlay\": {",
                        with:
                            "\"googlePlay\": {\"notifications\": {\"oidc\": {\"audience\": \"x\", \"certificatesURL\": \"file:///etc\"}}, "),
                    "googlePlay.notifications.oidc.certificatesURL"
                ),
                (
                    withAPI.replacingOccurrences(of: "\"googlePlay\": {", with: "\"googlePlay\": {\"notifications\": {}, "),
                    "googlePlay.notifications needs tokenSHA256 (a token in the push URL) or oidc"
                ),
            ]
            for (settings, expected) in notificationCases {
                let message = LiveServer.configurationRefusal(settings)
                #expect(message?.contains(expected) == true, "\(expected): \(message ?? "accepted")")
            }
        }
    }
}
