@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Rollouts from the command line: `depot publish --publish --rollout 10` stages and rolls a folder out to a tenth
/// of the buyers, `depot versions halt|rollout|promote` change its release, and what the command refuses or the
/// server refuses is said on standard error with a nonzero exit.
@Suite("depot publish --rollout and depot versions")
struct VersionsCommandTests {
    static let product = "com.example.atlas"

    @Test func aVersionIsRolledOutHaltedCompletedAndABetaOnePromoted() async throws {
        let binary = DepotProcess.debugBinary(filePath: #filePath)
        try await UploadServer.with(engine: .sqlite) { server in
            try await server.createProduct(Self.product, title: "Atlas of the North")
            let common = ["--server", "http://127.0.0.1:\(server.port)", "--key", UploadServer.token]
            func depot(_ arguments: [String]) async throws -> (status: Int32, text: String) {
                let run = try RunningProcess(binary, arguments)
                let status = try await run.exitStatus()
                return (status, run.text)
            }
            func publish(_ version: String, _ extra: [String]) async throws -> (status: Int32, text: String) {
                try server.scratch.write("atlas-\(version)/readme.txt", Array("North, edition \(version).".utf8))
                return try await depot(
                    ["publish", server.scratch.path + "/atlas-\(version)", "--product", Self.product, "--version", version]
                        + common + ["--state-dir", server.scratch.path + "/state"] + extra)
            }
            func release(_ version: String) async throws -> VersionRelease? {
                try await server.application.ledger.catalogVersions(productId: Self.product)
                    .first { $0.content.version == version && $0.state == .published }?.release
            }

            // Refused before anything is uploaded.
            let early = try await publish("0.9", ["--rollout", "10"])
            #expect(early.status != 0 && early.text.contains("--rollout and --channel take effect with --publish"), "\(early.text)")
            let outOfRange = try await publish("0.9", ["--publish", "--rollout", "150"])
            #expect(outOfRange.status != 0 && outOfRange.text.contains("1 to 100"), "\(outOfRange.text)")

            let first = try await publish("1.0", ["--publish"])
            #expect(first.status == 0 && first.text.contains("published \(Self.product) 1.0"), "\(first.text)")
            let rolled = try await publish("1.1", ["--publish", "--rollout", "10"])
            #expect(rolled.status == 0 && rolled.text.contains("published \(Self.product) 1.1 to 10% of buyers"), "\(rolled.text)")
            #expect(try await release("1.1") == .rollout(10))

            let halted = try await depot(["versions", "halt", Self.product, "1.1"] + common)
            #expect(halted.status == 0 && halted.text.contains("to 10% of buyers, halted"), "\(halted.text)")
            #expect(try await release("1.1") == VersionRelease(channel: .production, percent: 10, halted: true))
            // The server's refusal, with its reason.
            let lower = try await depot(["versions", "rollout", Self.product, "1.1", "--percent", "5"] + common)
            #expect(lower.status != 0 && lower.text.contains("a rollout only grows"), "\(lower.text)")
            let completed = try await depot(["versions", "rollout", Self.product, "1.1", "--percent", "100"] + common)
            #expect(completed.status == 0 && completed.text.contains("published \(Self.product) 1.1"), "\(completed.text)")
            #expect(try await release("1.1") == .full)
            #expect(try await release("1.0") == nil)

            let beta = try await publish("1.2", ["--publish", "--channel", "beta"])
            #expect(beta.status == 0 && beta.text.contains("1.2 to beta"), "\(beta.text)")
            let notBeta = try await depot(["versions", "promote", Self.product, "1.1"] + common)
            #expect(notBeta.status != 0 && notBeta.text.contains("not published to the beta channel"), "\(notBeta.text)")
            let promoted = try await depot(["versions", "promote", Self.product, "1.2", "--rollout", "50"] + common)
            #expect(promoted.status == 0 && promoted.text.contains("1.2 to 50% of buyers"), "\(promoted.text)")
            #expect(try await release("1.2") == .rollout(50))
            #expect(try await release("1.1") == .full)
        }
    }
}
