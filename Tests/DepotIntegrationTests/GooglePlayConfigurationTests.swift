@testable import DepotServerTestSupport
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

    static func refusal(_ settings: String) -> String? {
        do {
            _ = try LiveServer.loadConfiguration(settings)
            return nil
        } catch {
            return (error as? ConfigurationError)?.message ?? "\(error)"
        }
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
            let message = Self.refusal(settings)
            #expect(message?.contains(expected) == true, "\(expected): \(message ?? "accepted")")
        }
    }
}
