@testable import DepotServer
@testable import DepotServerTestSupport
import DepotCore
import DepotSettings
import DepotTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The routed API driven through Hummingbird's router without a socket (HummingbirdTesting's `.router` setup), over
/// an application prepared on a real SQLite ledger: the answers, error bodies and headers the routes give, fast.
@Suite("Routes without a socket")
struct RoutedRequestTests {
    /// Runs `body` with a router test client over an application prepared on the standard packs.
    static func withRouter(
        _ name: String = #function, packs: [LiveServer.PackSpec] = RouterRequests.packs,
        _ body: @Sendable (DepotApplication, any TestClientProtocol) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        let application = try await LiveServer.prepared(in: scratch, packs: packs)
        let (router, _, _) = application.makeRouter()
        do {
            try await Application(router: router).test(.router) { client in try await body(application, client) }
        } catch {
            await application.close()
            throw error
        }
        await application.close()
    }

    /// The JSON object of an answer's body.
    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
    }

    /// The `error.code` of an error answer.
    static func errorCode(_ response: TestResponse) throws -> String? {
        (try object(response)["error"] as? [String: Any])?["code"] as? String
    }

    @Test func healthAndReadinessAnswer() async throws {
        try await Self.withRouter { _, client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
            #expect(String(buffer: health.body) == "ok\n")
            RouterRequests.expectReady(try await client.execute(uri: "/readyz", method: .get))
        }
    }

    @Test func theProductListIsRevalidatedByItsEntityTag() async throws {
        try await Self.withRouter { application, client in
            let list = try await client.execute(uri: "/v1/products", method: .get)
            #expect(list.status == .ok)
            let products = try #require(try Self.object(list)["products"] as? [[String: Any]])
            #expect(Set(products.compactMap { $0["id"] as? String }).isSuperset(of: ["com.example.level1", "com.example.coins"]))
            let etag = try #require(list.headers[.eTag])
            #expect(list.headers[.cacheControl] == application.configuration.http.productListCacheControl)
            let again = try await client.execute(uri: "/v1/products", method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
        }
    }

    @Test func aSignedTransactionIsRedeemedAndAForgedOneRefused() async throws {
        try await Self.withRouter { application, client in
            let (jws, id) = try PurchaseSteps.sign(application, product: "com.example.level1", type: "Non-Consumable")
            let redeemed = try await client.execute(
                uri: "/v1/transactions", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{\"signedTransaction\": \"\(jws)\"}"))
            #expect(redeemed.status == .ok, "\(String(buffer: redeemed.body))")
            let transaction = try #require(try Self.object(redeemed)["transaction"] as? [String: Any])
            #expect(transaction["id"] as? String == id)
            let downloads = try #require(try Self.object(redeemed)["downloads"] as? [[String: Any]])
            #expect(
                downloads.first?["digest"] as? String
                    == application.catalog.versions.first { $0.productId == "com.example.level1" }?.digest.hex)

            // The same payload under a signature that is not the root's: refused, with Depot's error body.
            var forged = Array(jws.utf8)
            forged[forged.count - 5] = forged[forged.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let refused = try await client.execute(
                uri: "/v1/transactions", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{\"signedTransaction\": \"\(String(decoding: forged, as: UTF8.self))\"}"))
            #expect((400..<500).contains(refused.status.code), "\(String(buffer: refused.body))")
            #expect(try Self.errorCode(refused) != nil)
            #expect(refused.headers[.init("X-Request-Id")!] != nil)
        }
    }

    @Test func malformedBodiesAndMissingCredentialsGetDepotsErrorBodies() async throws {
        try await Self.withRouter { _, client in
            let malformed = try await client.execute(
                uri: "/v1/transactions", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{\"signedTransaction\": 7"))
            #expect(malformed.status == .badRequest)
            #expect(try Self.errorCode(malformed) != nil)
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.status == .unauthorized)
            #expect(try Self.errorCode(metrics) == "metrics-token-required")
            let publisher = try await client.execute(uri: "/v1/publisher/products/com.example.level1", method: .get)
            #expect(publisher.status == .unauthorized, "\(String(buffer: publisher.body))")
            #expect(try Self.errorCode(publisher) != nil)
            let forged = try await client.execute(
                uri: "/v1/publisher/products/com.example.level1", method: .get,
                headers: [.authorization: "Bearer dpk_" + String(repeating: "x", count: 43)])
            #expect(forged.status == .unauthorized || forged.status == .forbidden, "\(String(buffer: forged.body))")
            let unknown = try await client.execute(uri: "/v1/nothing-here", method: .get)
            #expect(unknown.status == .notFound)
            #expect(try Self.errorCode(unknown) != nil)
        }
    }

    @Test func anOperatorReadsTheMetrics() async throws {
        try await Self.withRouter { _, client in
            _ = try await client.execute(uri: "/v1/products", method: .get)
            let metrics = try await client.execute(
                uri: "/metrics", method: .get, headers: [.authorization: "Bearer test-admin"])
            #expect(metrics.status == .ok, "\(String(buffer: metrics.body))")
            let text = String(buffer: metrics.body)
            #expect(text.contains("depot_http_requests_total{") && text.contains("/v1/products"), "\(text.prefix(2000))")
        }
    }

    @Test func theUpdatePreviewSaysWhatABuyerOnAVersionWouldDownload() async throws {
        try await Self.withRouter { application, client in
            let current = try #require(application.catalog.versions.first { $0.productId == "com.example.level1" })
            let same = try await client.execute(uri: "/v1/products/com.example.level1/update?from=\(current.version)", method: .get)
            #expect(same.status == .ok, "\(String(buffer: same.body))")
            #expect(try Self.object(same)["download"] as? String == "none")
            let older = try await client.execute(uri: "/v1/products/com.example.level1/update?from=0.1", method: .get)
            let body = try Self.object(older)
            #expect(body["download"] as? String == "full" && body["to"] as? String == current.version)
            #expect((body["bytes"] as? NSNumber)?.int64Value == current.size)
            #expect(older.headers[.cacheControl] == application.configuration.http.productListCacheControl)
            let missing = try await client.execute(uri: "/v1/products/com.example.level1/update", method: .get)
            #expect(missing.status == .badRequest)
            let unknown = try await client.execute(uri: "/v1/products/com.example.nothing/update?from=1.0", method: .get)
            #expect(unknown.status == .notFound)
            #expect(try Self.errorCode(unknown) == "not-found")
        }
    }
}
