@testable import DepotServerTestSupport
import DepotCore
@testable import DepotOrigin
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// An edge presenting the shared secret fetches bundles without a grant, to fill its cache; nothing else does.
@Suite("Edge fill with a shared secret on a live server")
struct EdgeFillTests {
    static let current = "edge-secret-current-" + String(repeating: "c", count: 20)
    static let previous = "edge-secret-previous-" + String(repeating: "p", count: 20)

    @Test func eitherAcceptedSecretFetchesBundlesWithoutAGrant() async throws {
        let settings = "\"edge\": {\"fillSecrets\": [\"\(Self.current)\", \"\(Self.previous)\"]}"
        try await LiveServer.with(settings: settings) { server in
            let level = try server.version("com.example.level1")
            let expected = try server.bundleBytes(level.digest.hex)
            let client = try RawHTTPClient(port: server.port)
            let path = "/v1/bundles/\(level.digest)"
            #expect(server.application.edgeFills.answerCount == 0)

            let whole = try await client.request(RawHTTPClient.get(path, ["X-Depot-Edge-Secret: \(Self.current)"]))
            #expect(whole.status == 200)
            #expect(whole.body == expected)
            let slice = try await client.request(
                RawHTTPClient.get(path, ["x-depot-edge-secret: \(Self.previous)", "Range: bytes=0-1048575"]))
            #expect(slice.status == 206)
            #expect(slice.body == Array(expected[0..<1_048_576]))
            let head = try await client.request(
                RawHTTPClient.get(path, ["X-Depot-Edge-Secret: \(Self.current)"], method: "HEAD"), head: true)
            #expect(head.status == 200)
            // A fill is counted once its bytes are with the kernel, which can be after the client has read them.
            try await eventually("the three fills to be counted", within: 120) {
                server.application.edgeFills.answerCount == 3
            }
            #expect(server.application.edgeFills.byteCount == expected.count + 1_048_576)

            // A wrong, repeated or empty secret is refused, even beside a good grant.
            let grant = "Authorization: Bearer \(server.grant(level.digest.hex))"
            for fields in [
                ["X-Depot-Edge-Secret: \(Self.current)x"],
                ["X-Depot-Edge-Secret: \(Self.current)", "X-Depot-Edge-Secret: \(Self.current)"],
                ["X-Depot-Edge-Secret: \(Self.previous.dropLast())", grant],
            ] {
                let refused = try await client.request(RawHTTPClient.get(path, fields))
                #expect(refused.status == 403, "\(fields)")
                #expect(refused.text.contains("edge-secret-refused"))
            }
            // Without the secret, everything still needs a grant.
            #expect(try await client.request(RawHTTPClient.get(path)).status == 401)
            #expect(try await client.request(RawHTTPClient.get(path, [grant])).status == 200)
            #expect(server.application.edgeFills.answerCount == 3, "grant answers are not edge fills")
            // The secret opens bundles only: an unknown digest is still 404.
            let unknown = try await client.request(
                RawHTTPClient.get("/v1/bundles/\(String(repeating: "ab", count: 32))", ["X-Depot-Edge-Secret: \(Self.current)"]))
            #expect(unknown.status == 404)
        }
    }

    @Test func withoutConfiguredSecretsTheFieldOpensNothing() async throws {
        try await LiveServer.with { server in
            let level = try server.version("com.example.level1")
            let client = try RawHTTPClient(port: server.port)
            let path = "/v1/bundles/\(level.digest)"
            let answer = try await client.request(RawHTTPClient.get(path, ["X-Depot-Edge-Secret: \(Self.current)"]))
            #expect(answer.status == 401)
            let withGrant = try await client.request(
                RawHTTPClient.get(path, ["X-Depot-Edge-Secret: anything", "Authorization: Bearer \(server.grant(level.digest.hex))"]))
            #expect(withGrant.status == 200)
        }
    }

    @Test func theSecretFieldNameIsConfigurable() async throws {
        let settings = "\"edge\": {\"fillSecretHeader\": \"X-Edge-Key\", \"fillSecrets\": [\"\(Self.current)\"]}"
        try await LiveServer.with(settings: settings) { server in
            let level = try server.version("com.example.level1")
            let client = try RawHTTPClient(port: server.port)
            let path = "/v1/bundles/\(level.digest)"
            #expect(try await client.request(RawHTTPClient.get(path, ["X-Edge-Key: \(Self.current)"])).status == 200)
            #expect(try await client.request(RawHTTPClient.get(path, ["X-Depot-Edge-Secret: \(Self.current)"])).status == 401)
        }
    }
}
