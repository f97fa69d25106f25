@testable import DepotServerTestSupport
import DepotCore
import DepotTrust
import Foundation
import Testing

@Suite("Product lists on a live server")
struct ProductListTests {
    @Test func plainListIsAnArrayOfIdentifiersWithValidators() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let response = try await client.request(RawHTTPClient.get("/products_v1.json"))
            #expect(response.status == 200)
            let ids = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String]
            #expect(ids == ["com.example.level1", "com.example.monthly", "com.example.coins", "com.example.premium", "com.example.season"])
            let etag = try #require(response.value("ETag"))
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
            #expect(response.value("Last-Modified") == "Tue, 01 Sep 2026 06:00:00 GMT")
            #expect(response.value("Cache-Control") == "public, max-age=60, s-maxage=5, stale-while-revalidate=30")
            #expect(response.value("Surrogate-Key") == "product-lists")
            #expect(response.value("Content-Type") == "application/json")

            let revalidated = try await client.request(RawHTTPClient.get("/products_v1.json", ["If-None-Match: \(etag)"]))
            #expect(revalidated.status == 304)
            #expect(revalidated.value("ETag") == etag)
            let bySince = try await client.request(
                RawHTTPClient.get("/products_v1.json", ["If-Modified-Since: Tue, 01 Sep 2026 06:00:00 GMT"]))
            #expect(bySince.status == 304)
            let older = try await client.request(
                RawHTTPClient.get("/products_v1.json", ["If-Modified-Since: Mon, 31 Aug 2026 06:00:00 GMT"]))
            #expect(older.status == 200)
            let changed = try await client.request(RawHTTPClient.get("/products_v1.json", ["If-None-Match: \"stale\""]))
            #expect(changed.status == 200)
        }
    }

    @Test func richListFollowsTheContract() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let response = try await client.request(RawHTTPClient.get("/v1/products"))
            #expect(response.status == 200)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            let products = try #require(body["products"] as? [[String: Any]])
            #expect(
                products.map { $0["id"] as? String } == [
                    "com.example.level1", "com.example.monthly", "com.example.coins", "com.example.premium", "com.example.season",
                ])
            #expect(
                products.map { $0["type"] as? String } == ["nonConsumable", "autoRenewable", "consumable", "nonConsumable", "nonRenewing"])
            let contents = try #require(products[0]["contents"] as? [[String: Any]])
            let level1 = try server.version("com.example.level1")
            #expect(contents.count == 1)
            #expect(contents[0]["id"] as? String == "com.example.level1")
            #expect(contents[0]["version"] as? String == "1.0")
            #expect(contents[0]["digest"] as? String == level1.digest.hex)
            #expect((contents[0]["size"] as? NSNumber)?.int64Value == level1.size)
            #expect(contents[0]["publishedAt"] as? String == "2026-03-01T09:00:00Z")
            let etag = try #require(response.value("ETag"))
            #expect(try await client.request(RawHTTPClient.get("/v1/products", ["If-None-Match: \(etag)"])).status == 304)
        }
    }

    @Test func unknownRoutesAnswerJSON404() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let response = try await client.request(RawHTTPClient.get("/nowhere"))
            #expect(response.status == 404)
            #expect(response.text.contains("\"code\":\"not-found\""))
        }
    }
}
