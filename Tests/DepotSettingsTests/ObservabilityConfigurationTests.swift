@testable import DepotServerTestSupport
import DepotSettings
import Foundation
import Testing

/// `log.format` and `metrics.tokenSHA256` in `depot.json`: defaults, accepted values, refusals that name the field.
@Suite("Configuration: log format and metrics tokens")
struct ObservabilityConfigurationTests {
    static func load(_ settings: String, _ name: String = #function) throws -> DepotConfiguration {
        try LiveServer.loadConfiguration(settings, name)
    }

    @Test func defaultsAreTextLogsAndNoMetricsToken() throws {
        let configuration = try Self.load("")
        #expect(configuration.logFormat == .text)
        #expect(configuration.metricsTokenDigests.isEmpty)
    }

    @Test func jsonLogsAndAMetricsTokenAreRead() throws {
        let digest = String(repeating: "ab", count: 32)
        let configuration = try Self.load("\"log\": {\"format\": \"json\"}, \"metrics\": {\"tokenSHA256\": [\"\(digest)\"]}")
        #expect(configuration.logFormat == .json)
        #expect(configuration.metricsTokenDigests == [digest])
    }

    @Test(arguments: [
        ("\"log\": {\"format\": \"xml\"}", "log.format must be \"text\" or \"json\", not \"xml\""),
        ("\"metrics\": {\"tokenSHA256\": [\"ABC\"]}", "metrics.tokenSHA256 entries must be 64 lowercase hex digits"),
    ])
    func badValuesAreRefusedByName(settings: String, message: String) throws {
        #expect {
            _ = try Self.load(settings)
        } throws: { error in
            (error as? ConfigurationError)?.message.contains(message) == true
        }
    }
}
