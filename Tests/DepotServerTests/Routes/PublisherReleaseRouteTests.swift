@testable import DepotServer
@testable import DepotServerTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `PublisherReleaseRoutes` through the router without a socket, over coins 1.0 and 2.0 (2.0 current): publish,
/// rollout, halt and promote, each answering the version as it now stands, and the refusals each documents.
@Suite("Publisher release routes without a socket")
struct PublisherReleaseRouteTests {
    static let packs =
        RouterRequests.packs + [
            LiveServer.PackSpec(
                directory: "coins/1.0", productId: "com.example.coins", publishedAt: "2026-01-01T00:00:00Z",
                files: ["coins.json": Array("{\"coins\": 100}".utf8)]),
            LiveServer.PackSpec(
                directory: "coins/2.0", productId: "com.example.coins", version: "2.0", publishedAt: "2026-02-01T00:00:00Z",
                files: ["coins.json": Array("{\"coins\": 250}".utf8)]),
        ]

    /// Runs `body` with a router over `packs` and a publisher key.
    static func withRouter(
        _ name: String = #function, _ body: @Sendable (any TestClientProtocol, String) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        let application = try await LiveServer.prepared(in: scratch, packs: packs)
        let (router, _, _) = application.makeRouter()
        do {
            let key = try await PublisherRequests.makeKey(application.ledger).key
            try await Application(router: router).test(.router) { client in try await body(client, key) }
        } catch {
            await application.close()
            throw error
        }
        await application.close()
    }

    /// POSTs `action` on coins `version` with `json` (nil: no body).
    static func act(
        _ client: any TestClientProtocol, key: String?, _ version: String, _ action: String, _ json: String? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = key.map { [.authorization: "Bearer \($0)"] } ?? [:]
        if json != nil { headers[.contentType] = "application/json" }
        return try await client.execute(
            uri: "/v1/publisher/products/com.example.coins/versions/\(version)/\(action)", method: .post, headers: headers,
            body: json.map { ByteBuffer(string: $0) })
    }

    /// The answer's `version` object, `rollback` and `changed`.
    static func publication(_ response: TestResponse) throws -> (version: [String: Any], rollback: Bool?, changed: Bool?) {
        let body = try RoutedRequestTests.object(response)
        return (try #require(body["version"] as? [String: Any]), body["rollback"] as? Bool, body["changed"] as? Bool)
    }

    @Test func publishingAnOlderVersionRollsBackAndAgainChangesNothing() async throws {
        try await Self.withRouter { client, key in
            let rolledBack = try await Self.act(client, key: key, "1.0", "publish")
            try RouterRequests.expectJSON(rolledBack, .ok)
            let first = try Self.publication(rolledBack)
            #expect(first.version["version"] as? String == "1.0")
            #expect(first.version["current"] as? Bool == true)
            #expect(first.rollback == true && first.changed == true)
            let again = try Self.publication(try await Self.act(client, key: key, "1.0", "publish", "{}"))
            #expect(again.changed == false)
            #expect(again.version["current"] as? Bool == true)
        }
    }

    @Test func aRolloutGrowsIsHaltedAndCompletes() async throws {
        try await Self.withRouter { client, key in
            try RouterRequests.expectJSON(try await Self.act(client, key: key, "1.0", "publish"), .ok)
            let started = try await Self.act(client, key: key, "2.0", "publish", "{\"rollout\": 10}")
            try RouterRequests.expectJSON(started, .ok)
            #expect((try Self.publication(started).version["release"] as? [String: Any])?["rollout"] as? Int == 10)
            let raised = try await Self.act(client, key: key, "2.0", "rollout", "{\"percent\": 25}")
            try RouterRequests.expectJSON(raised, .ok)
            #expect((try Self.publication(raised).version["release"] as? [String: Any])?["rollout"] as? Int == 25)
            let shrunk = try await Self.act(client, key: key, "2.0", "rollout", "{\"percent\": 5}")
            try RouterRequests.expectJSON(shrunk, .conflict, code: "rollout-shrinks")
            let halted = try await Self.act(client, key: key, "2.0", "halt")
            try RouterRequests.expectJSON(halted, .ok)
            #expect((try Self.publication(halted).version["release"] as? [String: Any])?["halted"] as? Bool == true)
            let completed = try await Self.act(client, key: key, "2.0", "rollout", "{\"percent\": 100}")
            try RouterRequests.expectJSON(completed, .ok)
            #expect(try Self.publication(completed).version["current"] as? Bool == true)
            // Nothing rolls out any more: there is nothing to halt.
            try RouterRequests.expectJSON(try await Self.act(client, key: key, "2.0", "halt"), .conflict, code: "not-rolling-out")
        }
    }

    @Test func malformedReleasesAreRefused() async throws {
        try await Self.withRouter { client, key in
            for (action, json, code) in [
                ("publish", "{\"rollout\": 0}", "invalid-release"), ("publish", "{\"rollout\": 101}", "invalid-release"),
                ("publish", "{\"channel\": \"alpha\"}", "invalid-release"),
                ("publish", "{\"channel\": \"beta\", \"rollout\": 10}", "invalid-release"),
                ("publish", "{\"rollout\": \"ten\"}", "bad-request"), ("publish", "{", "bad-request"),
                ("rollout", "{}", "bad-request"), ("rollout", "{\"percent\": -1}", "invalid-release"),
                ("promote", "{\"channel\": \"production\"}", "invalid-release"),
            ] {
                let refused = try await Self.act(client, key: key, "2.0", action, json)
                try RouterRequests.expectJSON(refused, .badRequest, code: code)
            }
        }
    }

    @Test func theVersionAndTheKeyAreJudged() async throws {
        try await Self.withRouter { client, key in
            try RouterRequests.expectJSON(
                try await Self.act(client, key: nil, "2.0", "publish"), .unauthorized, code: "publisher-key-required")
            for action in ["publish", "halt", "promote"] {
                try RouterRequests.expectJSON(
                    try await Self.act(client, key: key, "7.7", action), .notFound, code: "unknown-version")
            }
            // Only a beta version is promoted; a production one is not.
            try RouterRequests.expectJSON(try await Self.act(client, key: key, "2.0", "promote"), .conflict, code: "version-not-beta")
            // A rollout takes buyers forward: not to a version older than the current one.
            try RouterRequests.expectJSON(
                try await Self.act(client, key: key, "1.0", "publish", "{\"rollout\": 50}"), .conflict, code: "rollout-not-newer")
        }
    }
}
