@testable import DepotServerTestSupport
import Foundation
import Testing

/// `depot serve` with a production configuration that accepts Sandbox transactions: refused without the
/// opt-in, started with it and a warning in its log.
@Suite("Production start with non-production App Store environments")
struct ProductionEnvironmentsStartTests {
    static let appleRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/realworld/certs/AppleRootCA-G3.cer").path

    static func write(in scratch: ScratchDirectory, optIn: Bool) throws {
        let secret = Data(repeating: 7, count: 32).base64EncodedString()
        try scratch.write(
            "Config/depot.json",
            """
            {"environment": "production",
             "grants": {"activeKeyId": "prod", "keys": [{"id": "prod", "secret": "\(secret)"}]},
             "appStore": {"trustedRoots": ["\(appleRoot)"], "environments": ["Production", "Sandbox"],
                          "allowNonProductionEnvironments": \(optIn)}}
            """)
        try scratch.write("Config/products.json", "{\"products\": []}")
        try scratch.write("content/.keep", "")
    }

    static func arguments(_ scratch: ScratchDirectory) -> [String] {
        ["--config", scratch.path + "/Config", "--data-dir", scratch.path + "/data", "--content-dir", scratch.path + "/content"]
    }

    @Test func withoutOptInTheServerRefusesToStart() async throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try Self.write(in: scratch, optIn: false)
        let server = try DepotProcess.launch(
            binary: DepotProcess.debugBinary(), arguments: Self.arguments(scratch), environment: [:])
        let exit = await server.waitForExit(timeout: .seconds(120))
        server.killIfRunning()
        #expect(exit != nil && exit?.status != 0, "\(server.logText)")
        #expect(server.logText.contains("allowNonProductionEnvironments"), "\(server.logText)")
        #expect(server.port == nil)
    }

    @Test func withOptInTheServerStartsAndWarns() async throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try Self.write(in: scratch, optIn: true)
        let server = try await DepotProcess.start(
            binary: DepotProcess.debugBinary(), arguments: Self.arguments(scratch), environment: [:])
        defer { server.killIfRunning() }
        let warning = server.logText.split(separator: "\n").first { $0.contains("NON-PRODUCTION TRANSACTIONS ACCEPTED") }
        #expect(warning?.contains("warning") == true, "\(server.logText)")
        #expect(warning?.contains("Sandbox") == true, "\(server.logText)")
        server.kill(SIGTERM)
        _ = await server.waitForExit(timeout: .seconds(60))
    }
}
