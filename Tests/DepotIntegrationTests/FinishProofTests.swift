@testable import DepotServerTestSupport
import DepotTelemetry
import DepotCore
import DepotServer
import Foundation
import Testing

/// Only the one that redeemed can finish: a finish needs the redeem answer's token, and nothing in a grant
/// URL names the transaction.
@Suite("Finishing needs proof of the redeem")
struct FinishProofTests {
    static func finishBody(token: String?, contentId: String, digest: String) -> String {
        let proof = token.map { "\"finishToken\": \"\($0)\", " } ?? ""
        return "{\(proof)\"delivered\": [{\"contentId\": \"\(contentId)\", \"digest\": \"\(digest)\"}]}"
    }

    /// A JSON POST carrying `X-Request-Id: requestId`.
    static func post(
        _ client: RawHTTPClient, _ path: String, requestId: String, _ json: String
    ) async throws
        -> RawHTTPClient.Response
    {
        try await client.request(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: \(requestId)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(json.utf8.count)\r\n\r\n\(json)")
    }

    @Test func aThirdPartyCannotFinishAPendingConsumable() async throws {
        try await LiveServer.with(packs: LiveServer.standardPacks + [ScheduledVersionTests.coins10]) { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable")
            let redeemed = try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))
            let token = try #require(redeemed["transaction.finishToken"]?.string)
            let digest = try #require(redeemed["downloads.0.digest"]?.string)
            let url = try #require(redeemed["downloads.0.url"]?.string)
            #expect(!url.contains(id), "the grant URL shows the transaction id: \(url)")
            // The digest is public (the product list), the id is known: still no finish without the token.
            let bare = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish", Self.finishBody(token: nil, contentId: "com.example.coins", digest: digest))
            #expect(bare.status == 401, "\(bare.text)")
            // Under one request id (error bodies carry it), so that the two answers may be compared byte for byte.
            let forged = try await Self.post(
                client, "/v1/transactions/\(id)/finish", requestId: "finish-proof",
                Self.finishBody(
                    token: "f1.test.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", contentId: "com.example.coins", digest: digest))
            let unknown = try await Self.post(
                client, "/v1/transactions/2999999999999999/finish", requestId: "finish-proof",
                Self.finishBody(
                    token: "f1.test.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", contentId: "com.example.coins", digest: digest))
            // A wrong token is answered exactly as an unknown transaction: the route is no oracle.
            #expect(forged.status == 404)
            #expect(forged.status == unknown.status && forged.body == unknown.body)
            // Another transaction's token does not open this one.
            let (otherJWS, _) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable")
            let otherToken = try #require(
                try JSONAnswer(try await client.request(PurchaseRequests.redeem(otherJWS)))["transaction.finishToken"]?.string)
            let crossed = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish", Self.finishBody(token: otherToken, contentId: "com.example.coins", digest: digest))
            #expect(crossed.status == 404)

            // A digest that is not a bundle's (here in uppercase) is refused as such, naming the field.
            let malformed = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish",
                Self.finishBody(token: token, contentId: "com.example.coins", digest: digest.uppercased()))
            #expect(malformed.status == 400, "\(malformed.text)")
            #expect(malformed.text.contains("delivered[0].digest"), "\(malformed.text)")

            // Nothing changed: the buyer's app redeems again, gets the same token and downloads, and finishes.
            let again = try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))
            #expect(again["transaction.state"]?.string == "pending")
            #expect(again["transaction.finishToken"]?.string == token)
            let finished = try await client.request(
                PurchaseRequests.finish(id, token: token, delivered: [(contentId: "com.example.coins", digest: digest)]))
            #expect(finished.status == 200, "\(finished.text)")
        }
    }

    @Test func aFinishedConsumablesGrantsStopWorking() async throws {
        try await LiveServer.with(packs: LiveServer.standardPacks + [ScheduledVersionTests.coins10]) { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable")
            let redeemed = try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))
            let url = try #require(redeemed["downloads.0.url"]?.string)
            let digest = try #require(redeemed["downloads.0.digest"]?.string)
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            let finished = try await client.request(
                PurchaseRequests.finish(
                    id, token: try #require(redeemed["transaction.finishToken"]?.string),
                    delivered: [(contentId: "com.example.coins", digest: digest)]))
            #expect(finished.status == 200, "\(finished.text)")
            let after = try await client.request(RawHTTPClient.get(url))
            #expect(after.status == 403, "\(after.text)")
        }
    }

    @Test func aPercentEncodedTransactionIdReachesItsTransaction() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let redeemed = try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))
            let encoded = id.utf8.map { String(format: "%%%02X", $0) }.joined()
            let report = try await client.request(
                RawHTTPClient.get("/v1/admin/transactions/\(encoded)", [AdminTests.admin]))
            #expect(report.status == 200, "\(report.text)")
            let finished = try await client.request(
                PurchaseRequests.finish(
                    encoded, token: try #require(redeemed["transaction.finishToken"]?.string),
                    delivered: [(contentId: "com.example.level1", digest: try #require(redeemed["downloads.0.digest"]?.string))]))
            #expect(finished.status == 200, "\(finished.text)")
            let broken = try await client.request(RawHTTPClient.get("/v1/admin/transactions/%FF%FE", [AdminTests.admin]))
            #expect(broken.status == 400 || broken.status == 404, "\(broken.text)")
        }
    }
}
