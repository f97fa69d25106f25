@testable import DepotServerTestSupport
import DepotSettings
import Foundation
import Testing

/// `grants.lifetimeSeconds` is bounded (at most 30 days): a larger lifetime is a configuration error named by its
/// setting, never a grant expiry that overflows when added to the time of issue.
@Suite("Grant lifetime setting")
struct GrantLifetimeSettingTests {
    /// The configuration loaded with `grants.lifetimeSeconds` set to `lifetime` (as JSON text).
    static func load(lifetime: String, _ name: String = #function) throws -> DepotConfiguration {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        try LiveServer.writeConfiguration(in: scratch, idleTimeoutSeconds: 5)
        let path = scratch.path + "/Config/depot.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try scratch.write(
            "Config/depot.json", text.replacingOccurrences(of: #""lifetimeSeconds": 600"#, with: #""lifetimeSeconds": "# + lifetime))
        return try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
    }

    @Test(arguments: ["1", "2592000"])
    func lifetimesUpToThirtyDaysAreAccepted(lifetime: String) throws {
        #expect(try Self.load(lifetime: lifetime).grants.lifetimeSeconds == Int64(lifetime))
    }

    @Test(arguments: ["0", "-1", "2592001", "9223372036854775807"])
    func otherLifetimesAreRefusedByName(lifetime: String) throws {
        #expect {
            _ = try Self.load(lifetime: lifetime)
        } throws: { error in
            (error as? ConfigurationError)?.message.contains("grants.lifetimeSeconds must be from 1 to 2592000") == true
        }
    }
}
