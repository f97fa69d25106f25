@testable import DepotServerTestSupport
import DepotCore
import DepotServer
import Foundation
import Testing

/// Bundles and lists as a CDN's origin sees them: caching fields, edge lifetime, purge tags, nothing that
/// splits or poisons a shared cache, and the same fields from every instance.
@Suite("Origin headers on a live server")
struct OriginHeadersTests {
    /// The fields of a response other than Date, in order.
    private static func fields(_ response: RawHTTPClient.Response, except ignored: Set<String> = ["date"]) -> [String] {
        response.headers.filter { !ignored.contains($0.name.lowercased()) }.map { "\($0.name): \($0.value)" }
    }

    @Test func bundlesCarryTheEdgeFieldsOnEveryAnswer() async throws {
        try await LiveServer.with { server in
            let level = try server.version("com.example.level1")
            let grant = "Authorization: Bearer \(server.grant(level.digest.hex))"
            let client = try RawHTTPClient(port: server.port)
            let path = "/v1/bundles/\(level.digest)"
            let complete = try await client.request(RawHTTPClient.get(path, [grant]))
            let head = try await client.request(RawHTTPClient.get(path, [grant], method: "HEAD"), head: true)
            let partial = try await client.request(RawHTTPClient.get(path, [grant, "Range: bytes=100-199"]))
            let conditional = try await client.request(
                RawHTTPClient.get(path, [grant, "If-Modified-Since: Mon, 01 Jan 2024 00:00:00 GMT"]))
            let notModified = try await client.request(RawHTTPClient.get(path, [grant, "If-None-Match: \"\(level.digest)\""]))
            #expect(
                [complete.status, head.status, partial.status, conditional.status, notModified.status] == [Int]([200, 200, 206, 200, 304]))
            let tags = "product:com.example.level1 content:com.example.level1 version:com.example.level1@1.0"
            for response in [complete, head, partial, conditional, notModified] {
                #expect(response.value("Cache-Control") == "public, max-age=31536000, immutable")
                #expect(response.value("CDN-Cache-Control") == "max-age=31536000")
                #expect(response.value("Surrogate-Key") == tags)
                #expect(response.value("ETag") == "\"\(level.digest)\"")
                #expect(response.values("Set-Cookie").isEmpty)
                #expect(response.values("Vary").isEmpty)
            }
            for response in [complete, head, partial, conditional] {
                #expect(response.value("Last-Modified") == "Sun, 01 Mar 2026 09:00:00 GMT")
            }
            // The prepared 200 and the one DepotHTTP plans for a conditional request carry the same fields.
            #expect(Self.fields(complete) == Self.fields(conditional))
            #expect(Self.fields(complete) == Self.fields(head))
            #expect(complete.value("Content-Length") == String(level.size))
            #expect(partial.value("Content-Length") == "100")
            #expect(partial.value("Content-Range") == "bytes 100-199/\(level.size)")
        }
    }

    @Test func cacheTagsWithCommasWhenConfigured() async throws {
        let settings =
            "\"edge\": {\"lifetimeHeader\": \"Surrogate-Control\", \"lifetimeSeconds\": 86400, \"purgeTagHeader\": \"Cache-Tag\", \"purgeTagSeparator\": \",\"}"
        try await LiveServer.with(settings: settings) { server in
            let issue = try server.version("com.example.monthly.2026-09")
            let client = try RawHTTPClient(port: server.port)
            let response = try await client.request(
                RawHTTPClient.get("/v1/bundles/\(issue.digest)", ["Authorization: Bearer \(server.grant(issue.digest.hex))"]))
            #expect(response.status == 200)
            #expect(response.value("Surrogate-Control") == "max-age=86400")
            #expect(response.value("CDN-Cache-Control") == nil)
            #expect(response.value("Surrogate-Key") == nil)
            #expect(
                response.value("Cache-Tag")
                    == "product:com.example.monthly,content:com.example.monthly.2026-09,version:com.example.monthly.2026-09@1.0")
            let list = try await client.request(RawHTTPClient.get("/v1/products"))
            #expect(list.value("Cache-Tag") == "product-lists")
        }
    }

    @Test func errorsAreNeverCachedByAnEdge() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.level1").digest
            let client = try RawHTTPClient(port: server.port)
            let refused = try await client.request(RawHTTPClient.get("/v1/bundles/\(digest)"))
            #expect(refused.status == 401)
            #expect(refused.value("Cache-Control") == "no-store")
            #expect(refused.value("Surrogate-Key") == nil)
            #expect(refused.value("CDN-Cache-Control") == nil)
        }
    }

    @Test func everyInstanceSendsTheSameFieldsForABundle() async throws {
        try await SharedInstances.with(engine: .sqlite) { shared in
            let digest = try shared.servers[0].version("com.example.level1").digest
            var answers: [[String: [String]]] = []
            for server in shared.servers {
                let client = try RawHTTPClient(port: server.port)
                let grant = "Authorization: Bearer \(server.grant(digest.hex))"
                for request in [
                    RawHTTPClient.get("/v1/bundles/\(digest)", [grant]),
                    RawHTTPClient.get("/v1/bundles/\(digest)", [grant, "Range: bytes=5-50"]),
                ] {
                    let response = try await client.request(request)
                    #expect(response.status == 200 || response.status == 206)
                    answers.append(["status": [String(response.status)], "fields": Self.fields(response)])
                }
                let head = try await client.request(RawHTTPClient.get("/v1/bundles/\(digest)", [grant], method: "HEAD"), head: true)
                answers.append(["status": [String(head.status)], "fields": Self.fields(head)])
            }
            #expect(answers.count == 6)
            #expect(Array(answers[0..<3]) == Array(answers[3..<6]), "instances disagree on a bundle's fields")
        }
    }
}
