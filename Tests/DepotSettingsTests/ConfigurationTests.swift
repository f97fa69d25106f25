@testable import DepotServerTestSupport
import DepotSettings
import DepotCore
import Foundation
import Testing

@Suite("Configuration: files, environment and options")
struct ConfigurationTests {
    @Test func embeddedDefaultsLoadFromTheRepository() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let configuration = try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(configPath: root + "/Config"), environment: [:])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.dataDirectory == "data")
        #expect(configuration.contentDirectory == "content")
        #expect(configuration.environment == .development)
        #expect(configuration.products.map(\.type.rawValue).contains("autoRenewable"))
    }

    @Test func optionsWinOverEnvironmentWhichWinsOverFiles() throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try LiveServer.writeConfiguration(in: scratch, idleTimeoutSeconds: 5)
        let config = scratch.path + "/Config"
        let environment = ["DEPOT_PORT": "9001", "DEPOT_DATA_DIR": "/env/data", "DEPOT_HOST": "0.0.0.0"]
        let fromEnvironment = try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(configPath: config), environment: environment)
        #expect(fromEnvironment.port == 9001)
        #expect(fromEnvironment.dataDirectory == "/env/data")
        #expect(fromEnvironment.host == "0.0.0.0")
        let fromOptions = try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(configPath: config, port: 9002, dataDirectory: "/opt/data"),
            environment: environment)
        #expect(fromOptions.port == 9002)
        #expect(fromOptions.dataDirectory == "/opt/data")
        let viaEnvironmentConfig = try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(), environment: ["DEPOT_CONFIG": config + "/depot.json"])
        #expect(viaEnvironmentConfig.grants.activeKeyId == "test")
    }

    @Test(arguments: [
        ("DEPOT_PORT=http", ["DEPOT_PORT": "http"], "DEPOT_PORT"),
        ("missing directory", ["DEPOT_CONFIG": "/nonexistent/depot"], "no configuration at"),
    ])
    func badSettingsAreNamed(name: String, environment: [String: String], expected: String) throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try LiveServer.writeConfiguration(in: scratch, idleTimeoutSeconds: 5)
        let error = #expect(throws: ConfigurationError.self, "\(name)") {
            try ConfigurationLoader.load(
                overrides: ConfigurationOverrides(configPath: environment["DEPOT_CONFIG"] == nil ? scratch.path + "/Config" : nil),
                environment: environment)
        }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
    }

    @Test func productionRefusesTheDevelopmentKey() throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try scratch.write("Config/products.json", "{\"products\": []}")
        try scratch.write(
            "Config/depot.json",
            """
            {"environment": "production", "grants": {"keys": [{"id": "dev", "development": true,
             "secret": "\(Data(repeating: 1, count: 32).base64EncodedString())"}]}}
            """)
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
        }
        #expect(error?.message.contains("development grant key") == true)
    }

    @Test func productionRefusesToTrustTheDevelopmentRoot() throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try scratch.write("Config/products.json", "{\"products\": []}")
        try scratch.write(
            "Config/depot.json",
            """
            {"environment": "production", "appStore": {"trustDevelopmentRoot": true},
             "grants": {"keys": [{"id": "prod", "secret": "\(Data(repeating: 9, count: 32).base64EncodedString())"}]}}
            """)
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
        }
        #expect(error?.message.contains("development root") == true, "\(error?.message ?? "")")
    }

    @Test func malformedFilesAreRefusedWithTheirPath() throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try scratch.write("Config/products.json", "{\"products\": [{\"id\": \"a\", \"type\": \"bogus\", \"title\": \"A\"}]}")
        try scratch.write(
            "Config/depot.json",
            "{\"grants\": {\"keys\": [{\"id\": \"k\", \"secret\": \"\(Data(repeating: 1, count: 32).base64EncodedString())\"}]}}")
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
        }
        #expect(error?.message.contains("products.json") == true, "\(error?.message ?? "")")
    }

    @Test(arguments: ["..", ".hidden", "a/b", "com example", ""])
    func productIdsThatAreNoIdentifiersAreRefused(id: String) throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try scratch.write("Config/products.json", "{\"products\": [{\"id\": \"\(id)\", \"type\": \"consumable\", \"title\": \"A\"}]}")
        try scratch.write(
            "Config/depot.json",
            "{\"grants\": {\"keys\": [{\"id\": \"k\", \"secret\": \"\(Data(repeating: 1, count: 32).base64EncodedString())\"}]}}")
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
        }
        #expect(error?.message.contains("product id \"\(id)\" is not 1-128 ASCII letters") == true, "\(error?.message ?? "")")
    }

    /// A production `depot.json` with a production grant key, a trusted root path and `appStore` entries.
    static func writeProduction(in scratch: ScratchDirectory, appStore: String) throws {
        try scratch.write("Config/products.json", "{\"products\": []}")
        try scratch.write(
            "Config/depot.json",
            """
            {"environment": "production", "appStore": {"trustedRoots": ["root.cer"]\(appStore)},
             "grants": {"keys": [{"id": "prod", "secret": "\(Data(repeating: 9, count: 32).base64EncodedString())"}]}}
            """)
    }

    @Test(arguments: [
        ("production, no list", "production", "", ["Production"]),
        ("development, no list", "development", "", ["LocalTesting", "Production", "Sandbox", "Xcode"]),
        ("development, Sandbox listed", "development", ", \"environments\": [\"Sandbox\"]", ["Sandbox"]),
        (
            "production, opted in", "production",
            ", \"environments\": [\"Production\", \"Sandbox\"], \"allowNonProductionEnvironments\": true",
            ["Production", "Sandbox"]
        ),
    ])
    func acceptedEnvironmentsDependOnTheDeployment(
        _ name: String, deployment: String, appStore: String, expected: [String]
    ) throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try Self.writeProduction(in: scratch, appStore: appStore)
        if deployment == "development" {
            let text = try String(contentsOfFile: scratch.path + "/Config/depot.json", encoding: .utf8)
            try scratch.write("Config/depot.json", text.replacingOccurrences(of: "\"production\"", with: "\"development\""))
        }
        let configuration = try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
        #expect(configuration.appStore.environments.sorted() == expected, "\(name)")
    }

    @Test(arguments: [
        ", \"environments\": [\"Production\", \"Sandbox\"]",
        ", \"environments\": [\"Xcode\"], \"allowNonProductionEnvironments\": false",
        ", \"environments\": [\"Production\", \"Sandbox\", \"Xcode\", \"LocalTesting\"]",
    ])
    func productionRefusesNonProductionEnvironmentsWithoutOptIn(appStore: String) throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try Self.writeProduction(in: scratch, appStore: appStore)
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
        }
        #expect(error?.message.contains("allowNonProductionEnvironments") == true, "\(error?.message ?? "")")
    }
}
