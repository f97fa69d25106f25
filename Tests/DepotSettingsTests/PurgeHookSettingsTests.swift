@testable import DepotServerTestSupport
import DepotSettings
import DepotServices
import Foundation
import Testing

/// `edge.purge` in `depot.json`, the retry schedule, and the tags of each kind of change.
@Suite("Purge hook: settings")
struct PurgeHookSettingsTests {
    private static func load(_ purge: String) throws -> DepotConfiguration {
        let scratch = try ScratchDirectory("purge-settings")
        defer { scratch.remove() }
        try LiveServer.writeConfiguration(in: scratch, idleTimeoutSeconds: 5, settings: "\"edge\": {\"purge\": \(purge)}")
        return try ConfigurationLoader.load(overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
    }

    @Test func aCommandIsFoundOnThePathAndTheDefaultsApply() throws {
        let hook = try #require(try Self.load("{\"command\": [\"sh\", \"-c\", \"true\"]}").edge.purgeHook)
        guard case .command(let command) = hook.target else {
            Issue.record("not a command: \(hook.target)")
            return
        }
        #expect(command.first?.hasPrefix("/") == true && command.first?.hasSuffix("/sh") == true)
        #expect(Array(command.dropFirst()) == ["-c", "true"])
        #expect(hook.retries == 5)
        #expect(hook.timeoutSeconds == 30)
        #expect(hook.backoffMilliseconds == 1000)
        #expect(hook.queueCapacity == 1000)
        #expect(
            try Self.load("{\"url\": \"https://purge.example.com/hook\"}").edge.purgeHook?.target
                == .url("https://purge.example.com/hook", headers: [:]))
        #expect(try LiveServerConfiguration.withoutPurge().edge.purgeHook == nil)
    }

    @Test(arguments: [
        ("{}", "exactly one of \"command\""),
        ("{\"command\": [\"/bin/sh\"], \"url\": \"http://x\"}", "exactly one of \"command\""),
        ("{\"command\": []}", "edge.purge.command must start with a program"),
        ("{\"command\": [\"/nonexistent/purge\"]}", "/nonexistent/purge, which is not an executable file"),
        ("{\"command\": [\"no-such-purge-program\"]}", "no-such-purge-program, which is not an executable program on PATH"),
        ("{\"command\": [\"/bin/sh\"], \"headers\": {\"A\": \"b\"}}", "edge.purge.headers applies to a \"url\" hook only"),
        ("{\"url\": \"ftp://example.com/purge\"}", "edge.purge.url must be an http:// or https:// URL"),
        ("{\"url\": \"purge\"}", "edge.purge.url must be an http:// or https:// URL"),
        ("{\"url\": \"http://x/p\", \"headers\": {\"Content-Type\": \"text/plain\"}}", "must not set Content-Type"),
        ("{\"url\": \"http://x/p\", \"headers\": {\"Bad Name\": \"v\"}}", "\"Bad Name\", which is not a header field name"),
        ("{\"url\": \"http://x/p\", \"headers\": {\"X-Token\": \"a\\nb\"}}", "must not contain control characters"),
        ("{\"url\": \"http://x/p\", \"retries\": 21}", "edge.purge.retries must be from 0 to 20, not 21"),
        ("{\"url\": \"http://x/p\", \"retries\": -1}", "edge.purge.retries must be from 0 to 20, not -1"),
        ("{\"url\": \"http://x/p\", \"timeoutSeconds\": 0}", "edge.purge.timeoutSeconds must be from 1 to 600, not 0"),
        ("{\"url\": \"http://x/p\", \"backoffMilliseconds\": 0}", "edge.purge.backoffMilliseconds must be from 1 to 60000"),
        ("{\"url\": \"http://x/p\", \"queueCapacity\": 0}", "edge.purge.queueCapacity must be from 1 to 100000, not 0"),
    ])
    func aBadHookIsRefusedWithAMessageNamingTheSetting(purge: String, message: String) throws {
        do {
            _ = try Self.load(purge)
            Issue.record("accepted: \(purge)")
        } catch let error as ConfigurationError {
            #expect(error.message.contains(message), "\(error.message)")
            #expect(!error.message.contains("a\nb"), "a header value is never echoed")
        }
    }

    @Test(arguments: [(1, 1000), (2, 2000), (3, 4000), (6, 32_000), (7, 60_000), (100, 60_000)])
    func retriesWaitTwiceAsLongEachTimeUpToAMinute(retry: Int, milliseconds: Int) {
        let settings = PurgeHookSettings(target: .command(["/bin/true"]))
        #expect(settings.delayMilliseconds(beforeRetry: retry) == milliseconds)
    }
}

/// The test configuration without an `edge` section.
enum LiveServerConfiguration {
    static func withoutPurge() throws -> DepotConfiguration {
        let scratch = try ScratchDirectory("purge-settings-none")
        defer { scratch.remove() }
        try LiveServer.writeConfiguration(in: scratch, idleTimeoutSeconds: 5)
        return try ConfigurationLoader.load(overrides: ConfigurationOverrides(configPath: scratch.path + "/Config"), environment: [:])
    }
}
