@testable import DepotServerTestSupport
import DepotTrust
import Foundation
import Testing

/// Signed transactions whose dates and quantity sit at the extremes (0, -1, the 32-bit edges, `Int64.max`,
/// `Int64.min`, `UInt64.max`), signed by the development authority so that they pass the signature check, redeemed
/// against a live server for every product type: each gets 200 or a 4xx with the JSON error shape, never a 5xx
/// or a trap, and the server keeps answering. Dates outside 1970...9999 and quantities outside 1...1,000,000 are
/// refused at verification (400), before any entitlement arithmetic.
@Suite("Redeem: signed numbers at their extremes")
struct RedeemExtremeValueTests {
    static let extremes: [JSONValue] = [
        .integer(0), .integer(-1), .integer(Int64(Int32.max)), .integer(Int64(UInt32.max) + 1), .integer(Int64.max),
        .integer(Int64.min), .number(Double(UInt64.max)),
    ]

    @Test func extremeDatesAndQuantitiesAreRedeemedOrRefused() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let products = [
                ("com.example.level1", "Non-Consumable"), ("com.example.monthly", "Auto-Renewable Subscription"),
                ("com.example.coins", "Consumable"), ("com.example.season", "Non-Renewing Subscription"),
            ]
            var answered: [Int: Int] = [:]
            for (product, type) in products {
                for key in ["purchaseDate", "expiresDate", "revocationDate", "quantity"] {
                    for value in Self.extremes {
                        let (jws, _) = try PurchaseSteps.sign(server, product: product, type: type) {
                            $0.extraFields[key] = value
                            if key == "purchaseDate" { $0.extraFields["originalPurchaseDate"] = value }
                        }
                        let label = "\(product) \(key) = \(value)"
                        let answer = try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}")
                        answered[answer.status, default: 0] += 1
                        #expect((200..<500).contains(answer.status), "\(label): \(answer.status) \(answer.text)")
                        if answer.status != 200 {
                            let error = try PurchaseSteps.object(answer)["error"] as? [String: Any]
                            #expect(error?["code"] is String && error?["message"] is String, "\(label): \(answer.text)")
                        }
                        if Self.isOutOfRange(key, value) {
                            #expect(answer.status == 400, "\(label) is refused at verification: \(answer.text)")
                        }
                    }
                }
            }
            #expect(answered[200, default: 0] > 0 && answered[400, default: 0] > 0, "\(answered)")
            let health = try await client.request(RawHTTPClient.get("/healthz"))
            #expect(health.status == 200)
        }
    }

    /// Whether `value` lies outside what a signed transaction may carry in `key`.
    static func isOutOfRange(_ key: String, _ value: JSONValue) -> Bool {
        guard case .integer(let number) = value else { return true }
        return key == "quantity" ? !(1...1_000_000).contains(number) : !AppStoreDate.milliseconds.contains(number)
    }
}
