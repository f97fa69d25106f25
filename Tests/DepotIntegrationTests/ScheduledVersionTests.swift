@testable import DepotServerTestSupport
import DepotTestSupport
import DepotCore
import DepotServer
import DepotServices
import Foundation
import Testing

/// A version scheduled for later hides nothing: the one before it stays current until its time.
@Suite("Scheduled versions")
struct ScheduledVersionTests {
    static let coins10 = LiveServer.PackSpec(
        directory: "coins/1.0", productId: "com.example.coins", files: ["coins.json": Array("{\"coins\": 100}".utf8)])
    static let coins11Later = LiveServer.PackSpec(
        directory: "coins/1.1", productId: "com.example.coins", version: "1.1", publishedAt: "2099-01-01T00:00:00Z",
        files: ["coins.json": Array("{\"coins\": 250}".utf8)])

    @Test func aFutureVersionNeitherHidesNorReplacesTheCurrentOne() async throws {
        try await LiveServer.with(packs: LiveServer.standardPacks + [Self.coins10, Self.coins11Later]) { server in
            let client = try RawHTTPClient(port: server.port)
            let current = try #require(
                server.application.catalog.versions.first { $0.contentId == "com.example.coins" && $0.version == "1.0" })

            // The lists show 1.0, with a Last-Modified that is not in the future.
            let list = try await client.request(RawHTTPClient.get("/v1/products"))
            let products = try JSONAnswer(list)["products"]?.array ?? []
            let coins = try #require(products.first { $0["id"]?.string == "com.example.coins" })
            #expect(coins["contents.0.version"]?.string == "1.0")
            #expect(coins["contents.0.digest"]?.string == current.digest.hex)
            let lastModified = try #require(list.value("Last-Modified"))
            #expect(lastModified == "Tue, 01 Sep 2026 06:00:00 GMT", "\(lastModified)")

            // A new buyer is offered 1.0, and finishing with nothing delivered is refused.
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable")
            let redeemed = try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))
            #expect(redeemed["downloads.0.version"]?.string == "1.0")
            #expect(redeemed["downloads.0.digest"]?.string == current.digest.hex)
            let token = try #require(redeemed["transaction.finishToken"]?.string)
            let empty = try await client.request(PurchaseRequests.finish(id, token: token, delivered: []))
            #expect(empty.status == 409, "\(empty.text)")
            #expect(try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))["transaction.state"]?.string == "pending")
            let finished = try await client.request(
                PurchaseRequests.finish(id, token: token, delivered: [(contentId: "com.example.coins", digest: current.digest.hex)]))
            #expect(finished.status == 200, "\(finished.text)")
        }
    }

    @Test func theListsFollowTheClockWithoutARestart() throws {
        let product = Product(id: "p", type: .nonConsumable, title: "P")
        let v1 = ContentVersion(
            productId: "p", contentId: "p", version: "1.0", publishedAt: 1_000, digest: .labelled("d1"), size: 1, unpackedSize: 1)
        let v2 = ContentVersion(
            productId: "p", contentId: "p", version: "2.0", publishedAt: 2_000, digest: .labelled("d2"), size: 2, unpackedSize: 2)
        let listing = try ScheduledListing(catalog: Catalog(products: [product], versions: [v1, v2]), now: 1_500)
        let before = try listing.listing(at: 1_999)
        #expect(String(decoding: before.products.body, as: UTF8.self).contains("\"\(v1.digest)\""))
        #expect(before.products.lastModified == 1_000)
        let after = try listing.listing(at: 2_000)
        #expect(String(decoding: after.products.body, as: UTF8.self).contains("\"\(v2.digest)\""))
        #expect(after.products.lastModified == 2_000)
        #expect(after.products.entityTag != before.products.entityTag)
    }
}
