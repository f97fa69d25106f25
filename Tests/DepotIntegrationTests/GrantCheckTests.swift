@testable import DepotServerTestSupport
import DepotCore
import DepotServer
import DepotTrust
import Foundation
import Testing

/// `GET /v1/grants/check`, the subrequest an edge makes (nginx's `auth_request`) before serving a bundle.
@Suite("Grant check for edges on a live server")
struct GrantCheckTests {
    private static func check(
        _ client: RawHTTPClient, _ headers: [String], method: String = "GET"
    ) async throws
        -> RawHTTPClient.Response
    {
        try await client.request(RawHTTPClient.get("/v1/grants/check", headers, method: method), head: method == "HEAD")
    }

    @Test func aGoodGrantIs204AndEveryRefusalHasItsStatus() async throws {
        try await LiveServer.with(settings: "\"edge\": {\"grantCheckCacheSeconds\": 30}") { server in
            let level = try server.version("com.example.level1").digest
            let issue = try server.version("com.example.monthly.2026-09").digest
            let grant = server.grant(level.hex)
            let client = try RawHTTPClient(port: server.port)

            let byQuery = try await Self.check(client, ["X-Original-URI: /v1/bundles/\(level)?grant=\(grant)"])
            #expect(byQuery.status == 204)
            #expect(byQuery.body.isEmpty)
            #expect(byQuery.value("Content-Length") == nil)
            #expect(byQuery.value("Cache-Control") == "max-age=30")
            let byHeader = try await Self.check(client, ["X-Original-URI: /v1/bundles/\(level)", "Authorization: Bearer \(grant)"])
            #expect(byHeader.status == 204)
            let head = try await Self.check(client, ["X-Original-URI: /v1/bundles/\(level)?grant=\(grant)"], method: "HEAD")
            #expect(head.status == 204)

            // A grant about to expire is never kept longer than it lives: 20 s, under the 30 s a check is kept otherwise
            // (and long enough for the check to arrive in time on a loaded machine).
            let shortLived = server.grant(level.hex, ttl: 20)
            let short = try await Self.check(client, ["X-Original-URI: /v1/bundles/\(level)?grant=\(shortLived)"])
            #expect(short.status == 204)
            let maxAge = try #require(short.value("Cache-Control").flatMap { Int64($0.dropFirst("max-age=".count)) })
            #expect(maxAge <= 20)

            let missing = try await Self.check(client, ["X-Original-URI: /v1/bundles/\(level)"])
            #expect(missing.status == 401)
            #expect(missing.value("WWW-Authenticate") == "Bearer realm=\"depot\"")
            #expect(missing.value("X-Depot-Error") == "grant-required")
            #expect(missing.value("Cache-Control") == "max-age=30")
            #expect(missing.text.contains("\"code\":\"grant-required\""))

            let otherBundle = try await Self.check(client, ["X-Original-URI: /v1/bundles/\(issue)?grant=\(grant)"])
            #expect(otherBundle.status == 403)
            #expect(otherBundle.value("X-Depot-Error") == "grant-bad-signature")
            let forged = try await Self.check(client, ["X-Original-URI: /v1/bundles/\(level)?grant=\(grant.dropLast(2))xy"])
            #expect(forged.status == 403)
            let expired = server.application.grants.issue(digest: level, expiresAt: DepotApplication.systemClock() - 1)
            let late = try await Self.check(client, ["X-Original-URI: /v1/bundles/\(level)?grant=\(expired)"])
            #expect(late.status == 403)
            #expect(late.value("X-Depot-Error") == "grant-expired")
            let notBundle = try await Self.check(client, ["X-Original-URI: /v1/products?grant=\(grant)"])
            #expect(notBundle.status == 403)
            #expect(notBundle.value("X-Depot-Error") == "not-a-bundle")
            let badDigest = try await Self.check(client, ["X-Original-URI: /v1/bundles/\(level.hex.uppercased())?grant=\(grant)"])
            #expect(badDigest.status == 403)

            // Requests that are not checks at all: clear 4xx, never kept by an edge.
            let noURI = try await Self.check(client, ["Authorization: Bearer \(grant)"])
            #expect(noURI.status == 400)
            #expect(noURI.value("Cache-Control") == "no-store")
            #expect(noURI.text.contains("X-Original-URI"))
            let twoURIs = try await Self.check(
                client, ["X-Original-URI: /v1/bundles/\(level)?grant=\(grant)", "X-Original-URI: /v1/bundles/\(issue)"])
            #expect(twoURIs.status == 400)
            let post = try await client.request(
                "POST /v1/grants/check HTTP/1.1\r\nHost: x\r\nX-Original-URI: /v1/bundles/\(level)?grant=\(grant)\r\nContent-Length: 0\r\n\r\n"
            )
            #expect(post.status == 405)
            #expect(post.value("Allow") == "GET, HEAD")
            // The connection still serves after every answer above.
            #expect(try await Self.check(client, ["X-Original-URI: /v1/bundles/\(level)?grant=\(grant)"]).status == 204)
        }
    }

    @Test func anEdgeSecretIsNoGrant() async throws {
        let secret = String(repeating: "s", count: 32)
        try await LiveServer.with(settings: "\"edge\": {\"fillSecrets\": [\"\(secret)\"]}") { server in
            let level = try server.version("com.example.level1").digest
            let client = try RawHTTPClient(port: server.port)
            let answer = try await Self.check(client, ["X-Original-URI: /v1/bundles/\(level)", "X-Depot-Edge-Secret: \(secret)"])
            #expect(answer.status == 401)
        }
    }

    @Test func aRefundedPurchasesGrantIsRefusedAtOnce() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let redeemed = try PurchaseSteps.object(
                try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}"))
            let url = try #require((redeemed["downloads"] as? [[String: Any]])?.first?["url"] as? String)
            #expect(try await Self.check(client, ["X-Original-URI: \(url)"]).status == 204)
            try await EdgeTestSupport.refund(server, client: client, transactionId: id)
            let refused = try await Self.check(client, ["X-Original-URI: \(url)"])
            #expect(refused.status == 403)
            #expect(refused.value("X-Depot-Error") == "grant-revoked")
        }
    }
}
