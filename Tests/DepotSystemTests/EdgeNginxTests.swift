@testable import DepotServerTestSupport
import DepotCore
@testable import DepotOrigin
import DepotServer
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// A real nginx with `deploy/nginx/depot-edge.conf.template` in front of a live Depot: the cache fills once
/// and then answers without the origin, ranges and resumes come out byte-identical across slice boundaries,
/// grants are checked on every request (cache hits included), a refund reaches the edge within the grant
/// check's cache time, and product lists revalidate with 304.
@Suite("nginx edge in front of a live Depot", .serialized)
struct EdgeNginxTests {
    static let secret = "edge-fill-secret-for-the-nginx-tests-0123456789"
    static let settings = """
        "edge": {"fillSecrets": ["\(secret)"], "grantCheckCacheSeconds": 1},
        "caching": {"productListCacheControl": "public, max-age=60, s-maxage=1, stale-while-revalidate=30"}
        """

    /// Runs `body` with a live Depot configured for edges and nginx in front of it.
    private static func withEdge(
        _ name: String = #function, body: (LiveServer, NginxEdge, RawHTTPClient) async throws -> Void
    ) async throws {
        try await LiveServer.with(name, idleTimeoutSeconds: 30, settings: settings) { server in
            try await NginxEdge.with(name, originPort: server.port, secret: secret) { edge in
                try await body(server, edge, try RawHTTPClient(port: edge.port))
            }
        }
    }

    @Test func theFirstDownloadFillsTheCacheAndTheSecondIsAHitTheOriginNeverSees() async throws {
        try await Self.withEdge { server, edge, client in
            let level = try server.version("com.example.level1")
            let expected = try server.bundleBytes(level.digest.hex)
            #expect(expected.count > 3 << 20, "the bundle should span several 1 MiB slices")
            let path = "/v1/bundles/\(level.digest)?grant=\(server.grant(level.digest.hex))"

            let first = try await client.request(RawHTTPClient.get(path))
            #expect(first.status == 200)
            #expect(first.body == expected)
            #expect(first.value("X-Cache-Status") == "MISS")
            #expect(first.value("ETag") == "\"\(level.digest)\"")
            #expect(first.value("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(first.value("Surrogate-Key") == nil, "edge-only fields reach the client")
            // The origin sent the bundle once, slice by slice, to the edge and to nobody else.
            try await eventually("the origin's edge-fill count reaching the bundle size") {
                server.application.edgeFills.byteCount == expected.count
            }
            let answersAfterFill = server.application.edgeFills.answerCount
            #expect(answersAfterFill == (expected.count + (1 << 20) - 1) >> 20)

            let second = try await client.request(RawHTTPClient.get(path))
            #expect(second.status == 200)
            #expect(second.body == expected)
            #expect(second.value("X-Cache-Status") == "HIT")
            #expect(second.value("ETag") == first.value("ETag"))
            #expect(second.value("Last-Modified") == first.value("Last-Modified"))
            #expect(second.value("Content-Length") == String(expected.count))
            // Another user, another grant: the cache key holds no grant, so this is a hit as well.
            let other = try await client.request(
                RawHTTPClient.get("/v1/bundles/\(level.digest)", ["Authorization: Bearer \(server.grant(level.digest.hex, ttl: 300))"]))
            #expect(other.status == 200)
            #expect(other.value("X-Cache-Status") == "HIT")
            #expect(other.body == expected)
            #expect(server.application.edgeFills.byteCount == expected.count, "the origin served the bytes again")
            #expect(server.application.edgeFills.answerCount == answersAfterFill)
        }
    }

    @Test func rangesAndAResumeThroughTheEdgeAreByteIdentical() async throws {
        guard let curl = ExternalTool.require("curl") else { return }
        try await Self.withEdge { server, edge, client in
            let level = try server.version("com.example.level1")
            let expected = try server.bundleBytes(level.digest.hex)
            let size = expected.count
            let path = "/v1/bundles/\(level.digest)?grant=\(server.grant(level.digest.hex))"
            let mib = 1 << 20
            // Before any fill (ranges fill only their slices), then again from the cache.
            for round in 0..<2 {
                for (first, last) in [(0, 99), (mib - 500, mib + 499), (2 * mib - 1, 3 * mib), (size - 1000, size - 1)] {
                    let response = try await client.request(RawHTTPClient.get(path, ["Range: bytes=\(first)-\(last)"]))
                    #expect(response.status == 206, "round \(round) bytes=\(first)-\(last)")
                    #expect(response.value("Content-Range") == "bytes \(first)-\(last)/\(size)")
                    #expect(response.body == Array(expected[first...last]), "round \(round) bytes=\(first)-\(last)")
                    #expect(response.value("ETag") == "\"\(level.digest)\"")
                }
                let suffix = try await client.request(RawHTTPClient.get(path, ["Range: bytes=-70000"]))
                #expect(suffix.status == 206)
                #expect(suffix.body == Array(expected[(size - 70000)...]))
                let open = try await client.request(RawHTTPClient.get(path, ["Range: bytes=\(3 * mib + 17)-"]))
                #expect(open.status == 206)
                #expect(open.body == Array(expected[(3 * mib + 17)...]))
                let unsatisfiable = try await client.request(RawHTTPClient.get(path, ["Range: bytes=\(size + 10)-"]))
                #expect(unsatisfiable.status == 416)
            }

            // An interrupted download (its first 2.5 MiB), resumed by curl -C - through the edge.
            let file = edge.cacheDirectory + "/../resumed.zip"
            try Data(expected[0..<(5 * mib / 2)]).write(to: URL(fileURLWithPath: file))
            let resumed = try await ExternalTool.run(curl, ["-sS", "-f", "-C", "-", "-o", file, edge.base + path])
            #expect(resumed.status == 0, "\(resumed.error)")
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file))) == expected)
            // A resume guarded by If-Range with the bundle's ETag, from the middle of a slice.
            let guarded = try await client.request(
                RawHTTPClient.get(path, ["Range: bytes=\(mib + 12345)-", "If-Range: \"\(level.digest)\""]))
            #expect(guarded.status == 206)
            #expect(guarded.body == Array(expected[(mib + 12345)...]))
        }
    }

    @Test func aBadGrantIsRefusedEvenForACachedBundle() async throws {
        try await Self.withEdge { server, edge, client in
            let level = try server.version("com.example.level1")
            let issue = try server.version("com.example.monthly.2026-09")
            let grant = server.grant(level.digest.hex)
            let cached = try await client.request(RawHTTPClient.get("/v1/bundles/\(level.digest)?grant=\(grant)"))
            #expect(cached.status == 200)
            let hit = try await client.request(RawHTTPClient.get("/v1/bundles/\(level.digest)?grant=\(grant)", ["Range: bytes=0-9"]))
            #expect(hit.value("X-Cache-Status") == "HIT")

            let none = try await client.request(RawHTTPClient.get("/v1/bundles/\(level.digest)"))
            #expect(none.status == 401)
            #expect(none.text.contains("\"grant-required\""))
            #expect(none.value("WWW-Authenticate") == "Bearer realm=\"depot\"")
            let forged = String(grant.dropLast(4)) + "AAAA"
            let refused = try await client.request(RawHTTPClient.get("/v1/bundles/\(level.digest)?grant=\(forged)"))
            #expect(refused.status == 403)
            #expect(refused.body.count < 200)
            let json = try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: [String: String]]
            #expect(json?["error"]?["code"]?.hasPrefix("grant-") == true, "\(refused.text)")
            let otherBundle = try await client.request(
                RawHTTPClient.get("/v1/bundles/\(level.digest)", ["Authorization: Bearer \(server.grant(issue.digest.hex))"]))
            #expect(otherBundle.status == 403)
            let expired = server.application.grants.issue(digest: level.digest, expiresAt: DepotApplication.systemClock() - 5)
            let late = try await client.request(RawHTTPClient.get("/v1/bundles/\(level.digest)?grant=\(expired)"))
            #expect(late.status == 403)
            #expect(late.text.contains("grant-expired"))
            // The good grant still opens the cached copy.
            let again = try await client.request(RawHTTPClient.get("/v1/bundles/\(level.digest)?grant=\(grant)", ["Range: bytes=0-9"]))
            #expect(again.status == 206)
            #expect(edge.accessLog.contains("cache=HIT"))
        }
    }

    @Test func aRefundedPurchasesGrantIsRefusedAtTheEdgeWithinTheCheckCacheTime() async throws {
        try await Self.withEdge { server, edge, client in
            let origin = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let redeemed = try PurchaseSteps.object(
                try await PurchaseSteps.post(origin, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}"))
            let url = try #require((redeemed["downloads"] as? [[String: Any]])?.first?["url"] as? String)
            let digest = try server.version("com.example.level1").digest
            let downloaded = try await client.request(RawHTTPClient.get(url))
            #expect(downloaded.status == 200)
            #expect(downloaded.body == (try server.bundleBytes(digest.hex)))

            try await EdgeTestSupport.refund(server, client: origin, transactionId: id)
            // Refused at the origin at once, and at the edge once its cached check (1 s) has expired.
            #expect(try await origin.request(RawHTTPClient.get(url)).status == 403)
            var last: RawHTTPClient.Response?
            try await eventually("the edge refusing the refunded grant") {
                last = try await client.request(RawHTTPClient.get(url, ["Range: bytes=0-99"]))
                return last?.status == 403
            }
            #expect(last?.text.contains("grant-revoked") == true, "\(last?.text ?? "")")
            // Other purchasers are still served from the cache.
            let other = try await client.request(
                RawHTTPClient.get("/v1/bundles/\(digest)?grant=\(server.grant(digest.hex))", ["Range: bytes=0-99"]))
            #expect(other.status == 206)
            #expect(other.value("X-Cache-Status") == "HIT")
        }
    }

    @Test func productListsAreCachedAndRevalidatedWith304() async throws {
        try await Self.withEdge { server, edge, client in
            let first = try await client.request(RawHTTPClient.get("/products_v1.json"))
            #expect(first.status == 200)
            #expect(first.value("X-Cache-Status") == "MISS")
            let etag = try #require(first.value("ETag"))
            let direct = try await RawHTTPClient(port: server.port).request(RawHTTPClient.get("/products_v1.json"))
            #expect(first.body == direct.body)
            // Once its s-maxage (1 s) has passed, the edge asks the origin with its validators; the origin's 304
            // refreshes the cached copy.
            var revalidated: RawHTTPClient.Response?
            try await eventually("the edge revalidating the product list") {
                revalidated = try await client.request(RawHTTPClient.get("/products_v1.json"))
                return revalidated?.value("X-Cache-Status") == "REVALIDATED"
            }
            #expect(revalidated?.status == 200)
            #expect(revalidated?.body == first.body)
            #expect(revalidated?.value("ETag") == etag)
            #expect(edge.accessLog.contains("\"GET /products_v1.json\" 200") && edge.accessLog.contains("upstream=304"))
            // A client holding the list gets 304 from the edge.
            let conditional = try await client.request(RawHTTPClient.get("/products_v1.json", ["If-None-Match: \(etag)"]))
            #expect(conditional.status == 304)
            #expect(conditional.value("ETag") == etag)
        }
    }
}
