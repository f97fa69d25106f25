import Foundation
import Testing

/// A Google Play purchase through a live server, as an Android app does it.
enum GooglePlaySteps {
    /// A Pub/Sub push body carrying `notification` (the DeveloperNotification's JSON members) for `packageName`.
    static func push(_ notification: String, packageName: String = GooglePlayFixture.packageName) -> String {
        let data =
            "{\"version\":\"1.0\",\"packageName\":\"\(packageName)\",\"eventTimeMillis\":\"\(Int64(Date().timeIntervalSince1970 * 1000))\",\(notification)}"
        return
            "{\"message\": {\"data\": \"\(Data(data.utf8).base64EncodedString())\", \"messageId\": \"1\"}, \"subscription\": \"projects/p/subscriptions/s\"}"
    }

    /// Redeems `purchase`, downloads its bundle and confirms the delivery; the transaction id, the finish answer
    /// and the download's URL.
    static func buy(
        _ client: RawHTTPClient, _ purchase: (data: String, signature: String, token: String, orderId: String), contentId: String
    ) async throws -> (id: String, finish: [String: Any], url: String) {
        let redeemed = try await PurchaseSteps.post(
            client, "/v1/transactions",
            try GooglePlaySteps.json(["googlePlay": ["purchaseData": purchase.data, "signature": purchase.signature]]))
        #expect(redeemed.status == 200, "\(redeemed.text)")
        let body = try PurchaseSteps.object(redeemed)
        let transaction = try #require(body["transaction"] as? [String: Any])
        let id = try #require(transaction["id"] as? String)
        let finishToken = try #require(transaction["finishToken"] as? String)
        let download = try #require((body["downloads"] as? [[String: Any]])?.first)
        let digest = try #require(download["digest"] as? String)
        let url = try #require(download["url"] as? String)
        #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
        let finished = try await PurchaseSteps.post(
            client, "/v1/transactions/\(id)/finish",
            try GooglePlaySteps.json(["finishToken": finishToken, "delivered": [["contentId": contentId, "digest": digest]]]))
        #expect(finished.status == 200, "\(finished.text)")
        return (id, try PurchaseSteps.object(finished), url)
    }

    /// `object` as JSON text.
    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }
}
