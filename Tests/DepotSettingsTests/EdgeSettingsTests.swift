@testable import DepotServerTestSupport
import DepotSettings
import DepotCore
import Foundation
import Testing

/// The `edge` section of `depot.json`: defaults, accepted values and clear refusals.
@Suite("Configuration: edge settings")
struct EdgeSettingsTests {
    static func load(_ settings: String, _ name: String = #function) throws -> DepotConfiguration {
        try LiveServer.loadConfiguration(settings, name)
    }

    @Test func withoutAnEdgeSectionTheDefaultsApply() throws {
        let edge = try Self.load("").edge
        #expect(edge.lifetimeHeader == .cdnCacheControl)
        #expect(edge.lifetimeSeconds == 31_536_000)
        #expect(edge.purgeTagHeader == "Surrogate-Key")
        #expect(edge.purgeTagSeparator == " ")
        #expect(edge.grantCheckCacheSeconds == 10)
        #expect(edge.fillSecretHeader == "X-Depot-Edge-Secret")
        #expect(edge.fillSecrets.isEmpty)
    }

    @Test func theRepositorysSampleNamesEveryEdgeSetting() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let text = try String(contentsOfFile: root + "/Config/depot.json", encoding: .utf8)
        for name in [
            "lifetimeHeader", "lifetimeSeconds", "purgeTagHeader", "purgeTagSeparator", "grantCheckCacheSeconds",
            "fillSecretHeader", "fillSecrets",
        ] {
            #expect(text.contains("\"\(name)\""), "Config/depot.json does not show edge.\(name)")
        }
        let configuration = try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(configPath: root + "/Config"), environment: [:])
        #expect(configuration.http.productListCacheControl.contains("s-maxage="))
        #expect(configuration.http.productListCacheControl.contains("stale-while-revalidate="))
    }

    @Test func everySettingIsRead() throws {
        let secretA = String(repeating: "a", count: 32)
        let secretB = String(repeating: "b", count: 40)
        let edge = try Self.load(
            """
            "edge": {"lifetimeHeader": "surrogate-control", "lifetimeSeconds": 86400, "purgeTagHeader": "Cache-Tag",
                     "purgeTagSeparator": ",", "grantCheckCacheSeconds": 0, "fillSecretHeader": "X-Edge-Key",
                     "fillSecrets": ["\(secretA)", "\(secretB)"]}
            """
        ).edge
        #expect(edge.lifetimeHeader == .surrogateControl)
        #expect(edge.lifetimeSeconds == 86400)
        #expect(edge.purgeTagHeader == "Cache-Tag")
        #expect(edge.purgeTagSeparator == ",")
        #expect(edge.grantCheckCacheSeconds == 0)
        #expect(edge.fillSecretHeader == "X-Edge-Key")
        #expect(edge.fillSecrets == [secretA, secretB])
        let none = try Self.load("\"edge\": {\"lifetimeHeader\": \"none\", \"purgeTagHeader\": \"none\"}").edge
        #expect(none.lifetimeHeader == nil)
        #expect(none.purgeTagHeader == nil)
    }

    @Test(arguments: [
        ("\"edge\": {\"lifetimeHeader\": \"Expires\"}", "edge.lifetimeHeader"),
        ("\"edge\": {\"lifetimeSeconds\": 0}", "edge.lifetimeSeconds"),
        ("\"edge\": {\"lifetimeSeconds\": 99999999999}", "edge.lifetimeSeconds"),
        ("\"edge\": {\"purgeTagHeader\": \"Surrogate Key\"}", "edge.purgeTagHeader"),
        ("\"edge\": {\"purgeTagHeader\": \"\"}", "edge.purgeTagHeader"),
        ("\"edge\": {\"purgeTagHeader\": \"Cache-Control\"}", "edge.purgeTagHeader"),
        ("\"edge\": {\"purgeTagSeparator\": \";\"}", "edge.purgeTagSeparator"),
        ("\"edge\": {\"grantCheckCacheSeconds\": -1}", "edge.grantCheckCacheSeconds"),
        ("\"edge\": {\"grantCheckCacheSeconds\": 301}", "edge.grantCheckCacheSeconds"),
        ("\"edge\": {\"fillSecretHeader\": \"Authorization\"}", "edge.fillSecretHeader"),
        ("\"edge\": {\"fillSecretHeader\": \"X-Edge:Secret\"}", "edge.fillSecretHeader"),
        ("\"edge\": {\"fillSecrets\": [\"short\"]}", "edge.fillSecrets[0]"),
        ("\"edge\": {\"fillSecrets\": [\"\(String(repeating: "a", count: 31)) \"]}", "edge.fillSecrets[0]"),
        (
            "\"edge\": {\"fillSecrets\": [\"\(String(repeating: "a", count: 32))\", \"\(String(repeating: "a", count: 32))\"]}",
            "the same secret twice"
        ),
        (
            "\"edge\": {\"fillSecrets\": [\"\(String(repeating: "a", count: 32))\", \"\(String(repeating: "b", count: 32))\", \"\(String(repeating: "c", count: 32))\"]}",
            "at most 2"
        ),
        ("\"edge\": {\"fillSecrets\": \"one\"}", "fillSecrets"),
        ("\"caching\": {\"productListCacheControl\": \"\"}", "caching.productListCacheControl"),
    ])
    func badEdgeSettingsAreRefusedWithTheirName(settings: String, expected: String) throws {
        let error = #expect(throws: ConfigurationError.self, "\(settings)") { try Self.load(settings) }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("depot.json") == true, "\(error?.message ?? "")")
    }
}
