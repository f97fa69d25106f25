@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotServer
import Foundation
import Testing

/// `PUT|GET /v1/publisher/products/{productId}`: validation with a clear code for each mistake, and the
/// product lists following the change.
@Suite("Publisher products")
struct PublisherProductTests {
    @Test func productsAreCreatedUpdatedAndRead() async throws {
        try await LiveServer.with(packs: []) { server in
            let client = Endpoint(port: server.port)
            let (key, _) = try await PublisherRequests.makeKey(server.application.ledger)
            let path = "/v1/publisher/products/com.example.pass"
            let before = try await client.request(RawHTTPClient.get("/v1/products"))
            let missing = try await client.request(PublisherRequests.request("GET", path, key: key))
            #expect(missing.status == 404)
            #expect(PublisherRequests.errorCode(missing) == "unknown-product")

            let created = try await client.request(
                PublisherRequests.request(
                    "PUT", path, key: key, json: #"{"type": "nonRenewing", "title": "Season pass", "periodDays": 90}"#))
            #expect(created.status == 201, "\(created.text)")
            let body = try JSONAnswer(created)
            #expect(body["product.id"]?.string == "com.example.pass")
            #expect(body["product.periodDays"]?.int == 90)
            #expect(body["product.versions"]?.array.isEmpty == true)

            let again = try await client.request(
                PublisherRequests.request(
                    "PUT", path, key: key, json: #"{"type": "nonRenewing", "title": "Season pass", "periodDays": 90}"#))
            #expect(again.status == 200)
            let renamed = try await client.request(
                PublisherRequests.request(
                    "PUT", path, key: key, json: #"{"type": "nonRenewing", "title": "Season pass 2027", "periodDays": 365}"#))
            #expect(renamed.status == 200)
            let read = try JSONAnswer(try await client.request(PublisherRequests.request("GET", path, key: key)))
            #expect(read["product.title"]?.string == "Season pass 2027")
            #expect(read["product.periodDays"]?.int == 365)

            // The change is served at once: the rich list names the product, with a new ETag.
            let after = try await client.request(RawHTTPClient.get("/v1/products"))
            #expect(after.value("ETag") != before.value("ETag"))
            #expect(after.text.contains("Season pass 2027"))
            #expect(server.application.catalog.product(id: "com.example.pass")?.periodSeconds == Int64(365 * 86_400))
            let stale = try await client.request(RawHTTPClient.get("/v1/products", ["If-None-Match: \(before.value("ETag") ?? "")"]))
            #expect(stale.status == 200)
        }
    }

    @Test(arguments: [
        (#"{"title": "X"}"#, "invalid-type"),
        (#"{"type": "subscription", "title": "X"}"#, "invalid-type"),
        (#"{"type": 3, "title": "X"}"#, "bad-request"),
        (#"{"type": "consumable"}"#, "invalid-title"),
        (#"{"type": "consumable", "title": "   "}"#, "invalid-title"),
        (#"{"type": "consumable", "title": "a\u0001b"}"#, "invalid-title"),
        (#"{"type": "nonRenewing", "title": "X"}"#, "invalid-period"),
        (#"{"type": "nonRenewing", "title": "X", "periodDays": 0}"#, "invalid-period"),
        (#"{"type": "nonRenewing", "title": "X", "periodDays": 40000}"#, "invalid-period"),
        (#"{"type": "consumable", "title": "X", "periodDays": 30}"#, "invalid-period"),
        (#"{"type": "consumable", "title": "X", "periodDays": "30"}"#, "bad-request"),
        ("not json", "bad-request"),
        ("", "bad-request"),
    ])
    func badProductsAreRefusedAndChangeNothing(json: String, code: String) async throws {
        try await LiveServer.with(packs: []) { server in
            let client = Endpoint(port: server.port)
            let (key, _) = try await PublisherRequests.makeKey(server.application.ledger)
            let revision = try await server.application.ledger.catalogRevision()
            let response = try await client.request(
                PublisherRequests.request("PUT", "/v1/publisher/products/com.example.new", key: key, json: json))
            #expect(response.status == 400, "\(response.text)")
            #expect(PublisherRequests.errorCode(response) == code, "\(response.text)")
            #expect(try await server.application.ledger.catalogProduct(id: "com.example.new") == nil)
            #expect(try await server.application.ledger.catalogRevision() == revision)
        }
    }

    @Test func aSoldProductKeepsItsTypeAndPeriod() async throws {
        try await LiveServer.with { server in
            let client = Endpoint(port: server.port)
            let (key, _) = try await PublisherRequests.makeKey(server.application.ledger)
            let revision = try await server.application.ledger.catalogRevision()

            // com.example.level1 has a published version: turning it consumable would take its buyers' content.
            let level = "/v1/publisher/products/com.example.level1"
            let retyped = try await client.request(
                PublisherRequests.request("PUT", level, key: key, json: #"{"type": "consumable", "title": "Level 1"}"#))
            #expect(retyped.status == 409, "\(retyped.text)")
            #expect(PublisherRequests.errorCode(retyped) == "product-type-locked")
            #expect(server.application.catalog.product(id: "com.example.level1")?.type == .nonConsumable)
            #expect(try await server.application.ledger.catalogRevision() == revision)
            let renamed = try await client.request(
                PublisherRequests.request("PUT", level, key: key, json: #"{"type": "nonConsumable", "title": "Level 1: Caves"}"#))
            #expect(renamed.status == 200, "\(renamed.text)")

            // com.example.season has no version, but a buyer: its period is fixed too.
            let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.season", type: "Non-Renewing Subscription")
            _ = try await PurchaseSteps.post(
                try RawHTTPClient(port: server.port), "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}")
            let season = "/v1/publisher/products/com.example.season"
            for json in [
                #"{"type": "nonRenewing", "title": "Season pass", "periodDays": 365}"#,
                #"{"type": "nonConsumable", "title": "Season pass"}"#,
            ] {
                let changed = try await client.request(PublisherRequests.request("PUT", season, key: key, json: json))
                #expect(changed.status == 409, "\(json): \(changed.text)")
                #expect(PublisherRequests.errorCode(changed) == "product-type-locked")
            }
            #expect(server.application.catalog.product(id: "com.example.season")?.periodSeconds == Int64(30 * 86_400))

            // A product nobody bought and with no version may still change its terms.
            let premium = try await client.request(
                PublisherRequests.request(
                    "PUT", "/v1/publisher/products/com.example.premium", key: key, json: #"{"type": "consumable", "title": "Premium"}"#))
            #expect(premium.status == 200, "\(premium.text)")
        }
    }

    @Test func badProductIdsAreRefused() async throws {
        try await LiveServer.with(packs: []) { server in
            let client = Endpoint(port: server.port)
            let (key, _) = try await PublisherRequests.makeKey(server.application.ledger)
            let revision = try await server.application.ledger.catalogRevision()
            for id in ["com%20example", "a%2Fb", String(repeating: "a", count: 129), "%FF", "caf%C3%A9", "%2E%2E", "%2E", ".hidden"] {
                let response = try await client.request(
                    PublisherRequests.request(
                        "PUT", "/v1/publisher/products/\(id)", key: key, json: #"{"type": "consumable", "title": "X"}"#))
                #expect(response.status == 400, "\(id): \(response.text)")
                #expect(PublisherRequests.errorCode(response) == "invalid-product-id")
            }
            #expect(try await server.application.ledger.catalogRevision() == revision)
            // A content id in a version route is held to the same rule.
            let dotted = try await client.request(
                PublisherRequests.request("POST", "/v1/publisher/products/com.example.x/versions/1.0/publish?contentId=..", key: key))
            #expect(dotted.status == 400, "\(dotted.text)")
            #expect(PublisherRequests.errorCode(dotted) == "invalid-content-id")
        }
    }
}
