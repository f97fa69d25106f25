@testable import DepotServerTestSupport
import DepotGooglePlayDouble
import DepotTestSupport
import Foundation
import Testing

/// Quantity-based partial refunds at Google Play, through a live server and the Google Play double on both ledger
/// engines: a void of one unit of three (`voidedQuantity`, listed with `includeQuantityBasedPartialRefund`) revokes
/// that unit and the rest keep entitling, the drop in `refundableQuantity` is read at redeem, and numbers out of
/// bounds are refused by the double's control routes and never reach a 5xx at Depot.
@Suite("Google Play partial refunds")
struct GooglePlayPartialRefundTests {
    static func redeem(
        _ client: RawHTTPClient, _ purchase: (data: String, signature: String, token: String, orderId: String), status: Int = 200
    ) async throws -> JSONAnswer {
        let response = try await PurchaseSteps.post(
            client, "/v1/transactions", try GooglePlayFlowTests.redeemBody(purchase.data, purchase.signature))
        #expect(response.status == status, "\(response.text)")
        return try JSONAnswer(response)
    }

    /// Asks the server to poll the voided purchases now (a voided purchase notification) and returns its outcome.
    static func voidedNotification(
        _ client: RawHTTPClient, _ purchase: (data: String, signature: String, token: String, orderId: String)
    ) async throws -> String {
        let voided =
            "\"voidedPurchaseNotification\":{\"purchaseToken\":\"\(purchase.token)\",\"orderId\":\"\(purchase.orderId)\",\"productType\":2,\"refundType\":2}"
        let answer = try await GooglePlayNotificationTests.post(client, GooglePlayNotificationTests.push(voided))
        #expect(answer.status == 200, "\(answer.text)")
        return try JSONAnswer(answer)["outcome"]?.string ?? ""
    }

    static func void(
        _ play: GooglePlayDoubleFixture, _ purchase: (data: String, signature: String, token: String, orderId: String),
        units: Int?
    ) {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var voided = GooglePlayDoubleVoidedPurchase(
            purchaseToken: purchase.token, orderId: purchase.orderId, purchaseTimeMillis: now - 60_000, voidedTimeMillis: now,
            refundType: units == nil ? 1 : 2)
        voided.voidedQuantity = units
        play.double.holdVoided(voided)
    }

    @Test(arguments: LedgerEngine.allCases)
    func oneOfThreeUnitsVoidedRevokesExactlyOne(engine: LedgerEngine) async throws {
        try await GooglePlayNotificationTests.withNotifiedServer(engine) { play, signer, client in
            let coins = try play.purchase(signer, productId: "coins", quantity: 3)
            let first = try await Self.redeem(client, coins)
            #expect(first["transaction.quantity"]?.int == 3)
            #expect(first["transaction.revokedQuantity"]?.int == 0)
            let id = try #require(first["transaction.id"]?.string)
            let url = try #require(first["downloads.0.url"]?.string)

            Self.void(play, coins, units: 1)
            #expect(try await Self.voidedNotification(client, coins) == "revoked")
            // Two units remain: the grant keeps working and a redeem still delivers.
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            let partly = try await Self.redeem(client, coins)
            #expect(partly["transaction.revokedQuantity"]?.int == 1)
            #expect(partly["transaction.revocation.type"]?.string == "voided")
            #expect(partly["transaction.revocation.percentage"] == nil)
            #expect(partly["downloads"]?.array.count == 1)
            // The same void listed again (an overlapping window) changes nothing.
            #expect(try await Self.voidedNotification(client, coins) == "unchanged")
            let report = try JSONAnswer(
                try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)", [AdminTests.admin])))
            #expect(report["transaction.revokedQuantity"]?.int == 1)
            let refunded = report["audit"]?.array.filter { $0["event"]?.string == "refunded" } ?? []
            #expect(refunded.count == 1)
            #expect(refunded.first?["detail"]?.string?.contains("voided 1 of 3 units revoked") == true)

            // A second unit: Google's refundable quantity (1 left) says two are refunded by now.
            Self.void(play, coins, units: 1)
            #expect(try await Self.voidedNotification(client, coins) == "revoked")
            #expect(try await Self.redeem(client, coins)["transaction.revokedQuantity"]?.int == 2)
            // The last one: the purchase is revoked, its grant stops.
            Self.void(play, coins, units: nil)
            #expect(try await Self.voidedNotification(client, coins) == "revoked")
            #expect(try await client.request(RawHTTPClient.get(url)).status == 403)
            _ = try await Self.redeem(client, coins, status: 410)
        }
    }

    /// A refund of some units whose number neither the void nor the purchase at Google tells revokes nothing (it
    /// revoked every unit, for good), until a later reading tells it.
    @Test(arguments: LedgerEngine.tested)
    func aPartialRefundOfUnknownUnitsRevokesNothing(engine: LedgerEngine) async throws {
        try await GooglePlayNotificationTests.withNotifiedServer(engine) { play, signer, client in
            let coins = try play.purchase(signer, productId: "coins", quantity: 3)
            let url = try #require(try await Self.redeem(client, coins)["downloads.0.url"]?.string)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            play.double.holdVoided(
                GooglePlayDoubleVoidedPurchase(
                    purchaseToken: coins.token, orderId: coins.orderId, purchaseTimeMillis: now - 60_000, voidedTimeMillis: now,
                    refundType: 2))
            // Google's purchase does not show the refund yet either.
            var held = try #require(play.double.purchase(token: coins.token))
            held.purchaseState = 0
            held.refundableQuantity = 3
            play.double.holdPurchase(held)
            #expect(try await Self.voidedNotification(client, coins) == "unchanged")
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            #expect(try await Self.redeem(client, coins)["transaction.revokedQuantity"]?.int == 0)
            // Once Google's purchase tells the units, the next reading revokes them.
            held.refundableQuantity = 2
            play.double.holdPurchase(held)
            #expect(try await Self.voidedNotification(client, coins) == "revoked")
            #expect(try await Self.redeem(client, coins)["transaction.revokedQuantity"]?.int == 1)
        }
    }

    /// A purchase whose `refundableQuantity` at Google is below its quantity is recorded with the difference revoked.
    @Test(arguments: LedgerEngine.allCases)
    func theDropInRefundableQuantityIsReadAtRedeem(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            try await GooglePlayFlowTests.withServer(engine, settings: play.settings(signer)) { server in
                let client = try RawHTTPClient(port: server.port)
                let coins = try play.purchase(signer, productId: "coins", quantity: 3, refundableQuantity: 2)
                let answer = try await Self.redeem(client, coins)
                #expect(answer["transaction.quantity"]?.int == 3)
                #expect(answer["transaction.revokedQuantity"]?.int == 1)
                #expect(answer["transaction.revocation.type"]?.string == "voided")
                #expect(answer["transaction.ownership"]?.string == "purchased")
                // Presented again, nothing new is recorded.
                _ = try await Self.redeem(client, coins)
                let id = try #require(answer["transaction.id"]?.string)
                let report = try JSONAnswer(
                    try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)", [AdminTests.admin])))
                #expect(report["audit"]?.array.filter { $0["event"]?.string == "refunded" }.count == 1)
            }
        }
    }

    /// Out-of-bounds numbers: the double's control routes refuse them (400), and what Google could still send
    /// (a voided quantity past the quantity, a refundable quantity below zero) never reaches a 5xx: a void of more
    /// than was bought revokes the purchase, and a refundable quantity that cannot be true is ignored.
    @Test func numbersOutOfBoundsAreRefusedOrIgnored() async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            let settings = play.settings(signer, notificationTokenSHA256: GooglePlayNotificationTests.tokenDigest)
            try await GooglePlayFlowTests.withServer(.sqlite, settings: settings) { server in
                let doublePort = try #require(URLComponents(string: play.base)?.port)
                let control = try RawHTTPClient(port: doublePort)
                for body in [
                    #"{"purchaseToken": "t1", "productId": "coins", "quantity": 0}"#,
                    #"{"purchaseToken": "t1", "productId": "coins", "quantity": 1000001}"#,
                    #"{"purchaseToken": "t1", "productId": "coins", "quantity": 3, "refundableQuantity": 4}"#,
                    #"{"purchaseToken": "t1", "productId": "coins", "quantity": 3, "refundableQuantity": -1}"#,
                    #"{"purchaseToken": "t1", "productId": "coins", "purchaseOptionId": ""}"#,
                ] {
                    let answer = try await PurchaseSteps.post(control, "/_double/purchases", body)
                    #expect(answer.status == 400, "\(body): \(answer.text)")
                }
                let held = try await PurchaseSteps.post(
                    control, "/_double/purchases",
                    #"{"purchaseToken": "t2", "productId": "coins", "quantity": 3, "refundableQuantity": 3, "purchaseOptionId": "buy"}"#)
                #expect(held.status == 200, "\(held.text)")
                for body in [
                    #"{"purchaseToken": "t2", "voidedQuantity": 0}"#, #"{"purchaseToken": "t2", "voidedQuantity": -2}"#,
                    #"{"purchaseToken": "t2", "refundType": 2}"#, #"{"purchaseToken": "t2", "refundType": 1, "voidedQuantity": 1}"#,
                    #"{"purchaseToken": "t2", "voidedQuantity": 1, "voidedReason": 9}"#,
                ] {
                    let answer = try await PurchaseSteps.post(control, "/_double/voided", body)
                    #expect(answer.status == 400, "\(body): \(answer.text)")
                }
                let partial = try await PurchaseSteps.post(
                    control, "/_double/voided", #"{"purchaseToken": "t2", "voidedQuantity": 1, "voidedReason": 8}"#)
                #expect(partial.status == 200, "\(partial.text)")
                #expect(play.double.purchase(token: "t2")?.refundableQuantity == 2)
                #expect(play.double.purchase(token: "t2")?.purchaseState == 0)

                let client = try RawHTTPClient(port: server.port)
                // A void of more units than were bought revokes the purchase.
                let coins = try play.purchase(signer, productId: "coins", quantity: 3)
                _ = try await Self.redeem(client, coins)
                Self.void(play, coins, units: 9)
                #expect(try await Self.voidedNotification(client, coins) == "revoked")
                _ = try await Self.redeem(client, coins, status: 410)
                // A refundable quantity below zero says nothing.
                let odd = try play.purchase(signer, productId: "coins", quantity: 3, refundableQuantity: -1)
                #expect(try await Self.redeem(client, odd)["transaction.revokedQuantity"]?.int == 0)
                // A quantity Play Billing never signs is malformed.
                let zero = GooglePlayTestSigner.purchaseData(
                    orderId: GooglePlayDouble.makeOrderId(), packageName: GooglePlayFixture.packageName, productId: "coins",
                    quantity: 0)
                let refused = try await PurchaseSteps.post(
                    client, "/v1/transactions", try GooglePlayFlowTests.redeemBody(zero, try signer.sign(zero)))
                #expect(refused.status == 400, "\(refused.text)")
            }
        }
    }
}
