@testable import DepotServerTestSupport
import DepotCore
import DepotServer
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// `docs/grants.md` says enough to check a grant without Depot: `docs/verify_grant.py`, written from it
/// alone, agrees with Depot on good, forged, foreign, expired and unknown-key grants.
@Suite("Grant format as documented for edges")
struct GrantFormatTests {
    @Test func anIndependentCheckerFollowingTheDocsAgreesWithDepot() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let script =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path + "/docs/verify_grant.py"
        try await LiveServer.with { server in
            let levelDigest = try server.version("com.example.level1").digest
            let level = levelDigest.hex
            let issue = try server.version("com.example.monthly.2026-09").digest.hex
            let key = "test=" + Data(LiveServer.secret).base64EncodedString()
            let now = DepotApplication.systemClock()
            let withTransaction = server.application.grants.issue(
                digest: levelDigest, expiresAt: now + 600, transactionId: "2000000123456789")
            let good = server.grant(level)
            let cases: [(grant: String, digest: String, keys: [String], expected: String)] = [
                (good, level, [key], "ok"),
                (withTransaction, level, [key], "ok"),
                (good, issue, [key], "grant-bad-signature"),
                (String(good.dropLast(3)) + "AAA", level, [key], "grant-bad-signature"),
                (server.application.grants.issue(digest: levelDigest, expiresAt: now - 1), level, [key], "grant-expired"),
                (good, level, ["other=" + Data(repeating: 1, count: 32).base64EncodedString()], "grant-unknown-key"),
                ("g1.test.123", level, [key], "grant-malformed"),
                (good.replacingOccurrences(of: "g1.", with: "g2."), level, [key], "grant-malformed"),
            ]
            let client = try RawHTTPClient(port: server.port)
            for item in cases {
                let result = try await ExternalTool.run(python, [script, item.grant, item.digest] + item.keys)
                #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == item.expected, "\(item.grant) \(result.error)")
                #expect(result.status == (item.expected == "ok" ? 0 : 1))
                // Depot's own check gives the same verdict (with the keys it holds).
                guard item.keys == [key] else { continue }
                let answer = try await client.request(
                    RawHTTPClient.get("/v1/grants/check", ["X-Original-URI: /v1/bundles/\(item.digest)?grant=\(item.grant)"]))
                #expect(answer.status == (item.expected == "ok" ? 204 : 403), "\(item.grant)")
                if item.expected != "ok" { #expect(answer.value("X-Depot-Error") == item.expected) }
            }
        }
    }
}
