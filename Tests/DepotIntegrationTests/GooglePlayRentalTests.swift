@testable import DepotServerTestSupport
import DepotCore
import DepotGooglePlayDouble
import DepotSettings
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// Google Play rentals through a live server and the Google Play double, on both ledger engines: a purchase made with
/// the configured rent option (`purchases.productsv2` naming it, with `rentOfferDetails`) carries `rentalEndsAt`, the
/// purchase plus the rental period until the finish confirms the delivery and that delivery plus the expiration period
/// after; its grants never outlast it; one bought three days and more ago answers 410 `rental-expired`; the buy option
/// of the same product is no rental; absurd times never reach a 5xx; a malformed rent option stops the start.
@Suite("Google Play rentals")
struct GooglePlayRentalTests {
    typealias Purchase = (data: String, signature: String, token: String, orderId: String)

    /// `level1` sold with a buy option and the rent option `rent-3d`; `level1_rental` only rented.
    static func settings(_ play: GooglePlayDoubleFixture, _ signer: GooglePlayTestSigner, rental: String = Self.rental) -> String {
        play.settings(signer).replacingOccurrences(
            of: #""level1": "com.example.level1""#,
            with:
                #""level1": {"product": "com.example.level1", "rental": {"rentalPeriod": "P3D", "expirationPeriod": "PT48H", "purchaseOptionId": "rent-3d"}}, "level1_rental": {"product": "com.example.level1", "rental": \#(rental)}"#
        )
    }

    static let rental = #"{"rentalPeriod": "P3D", "expirationPeriod": "PT48H"}"#

    /// Holds the purchase again at the double through its control route, with its purchase option (rented or not).
    static func hold(
        _ play: GooglePlayDoubleFixture, _ purchase: Purchase, productId: String = "level1", option: String?, rented: Bool,
        purchaseTimeMillis: Int64? = nil
    ) async throws {
        var body: [String: Any] = ["purchaseToken": purchase.token, "productId": productId, "orderId": purchase.orderId]
        if let option { body["purchaseOptionId"] = option }
        if rented { body["rentOfferDetails"] = [String: Any]() }
        if let purchaseTimeMillis { body["purchaseTimeMillis"] = purchaseTimeMillis }
        let control = try RawHTTPClient(port: try #require(URLComponents(string: play.base)?.port))
        let answer = try await PurchaseSteps.post(control, "/_double/purchases", try GooglePlayFlowTests.json(body))
        #expect(answer.status == 200, "\(answer.text)")
    }

    static func seconds(_ text: String?) -> Int64? { text.flatMap(UTCTimestamp.parse) }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    @Test(arguments: LedgerEngine.tested)
    func aRentalEndsAtTheEarlierOfItsTwoPeriods(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            try await GooglePlayFlowTests.withServer(engine, settings: Self.settings(play, signer)) { server in
                let client = try RawHTTPClient(port: server.port)
                let bought = Self.now * 1000
                let rented = try play.purchase(signer, productId: "level1", purchaseTime: bought)
                try await Self.hold(play, rented, option: "rent-3d", rented: true, purchaseTimeMillis: bought)

                let before = Self.now
                let first = try await GooglePlayPartialRefundTests.redeem(client, rented)
                let purchaseEnd = bought / 1000 + 3 * 86_400
                #expect(Self.seconds(first["transaction.rentalEndsAt"]?.string) == purchaseEnd)
                // No grant outlasts the 48 hours from its issue, nor the grant lifetime.
                let grantEnd = try #require(Self.seconds(first["downloads.0.grantExpiresAt"]?.string))
                #expect(grantEnd <= Self.now + 48 * 3_600)

                let id = try #require(first["transaction.id"]?.string)
                let finishToken = try #require(first["transaction.finishToken"]?.string)
                let contentId = try #require(first["downloads.0.contentId"]?.string)
                let digest = try #require(first["downloads.0.digest"]?.string)
                let finished = try JSONAnswer(
                    try await PurchaseSteps.post(
                        client, "/v1/transactions/\(id)/finish",
                        try GooglePlayFlowTests.json([
                            "finishToken": finishToken, "delivered": [["contentId": contentId, "digest": digest]],
                        ])))
                let after = Self.now
                // The clock started at the confirmed delivery: its end is 48 hours from then, before the 3 days.
                let deliveredEnd = try #require(Self.seconds(finished["transaction.rentalEndsAt"]?.string))
                #expect(deliveredEnd >= before + 48 * 3_600 && deliveredEnd <= after + 48 * 3_600)
                #expect(deliveredEnd < purchaseEnd)
                // A second device redeeming it gets the same end and no grant past it.
                let other = try await GooglePlayPartialRefundTests.redeem(client, rented)
                #expect(Self.seconds(other["transaction.rentalEndsAt"]?.string) == deliveredEnd)
                #expect(try #require(Self.seconds(other["downloads.0.grantExpiresAt"]?.string)) <= deliveredEnd)
                let report = try JSONAnswer(
                    try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)", [AdminTests.admin])))
                #expect(Self.seconds(report["transaction.rentalEndsAt"]?.string) == deliveredEnd)
                #expect(report["audit"]?.array.contains { $0["event"]?.string == "rental-started" } == true)

                // The same product bought with its buy option is no rental.
                let owned = try play.purchase(signer, productId: "level1")
                try await Self.hold(play, owned, option: "buy", rented: false)
                #expect(try await GooglePlayPartialRefundTests.redeem(client, owned)["transaction.rentalEndsAt"] == nil)

                // Rented more than three days ago and never delivered: the rental period alone ended it.
                let old = (Self.now - 4 * 86_400) * 1000
                let stale = try play.purchase(signer, productId: "level1", purchaseTime: old)
                try await Self.hold(play, stale, option: "rent-3d", rented: true, purchaseTimeMillis: old)
                let refused = try await GooglePlayPartialRefundTests.redeem(client, stale, status: 410)
                #expect(refused["error.code"]?.string == "rental-expired")
                // Presented again (a replay, or from another device), the answer is the same.
                #expect(try await GooglePlayPartialRefundTests.redeem(client, stale, status: 410)["error.code"]?.string == "rental-expired")

                // A product only rented is a rental whatever Google says of its purchase option.
                let onlyRented = try play.purchase(signer, productId: "level1_rental")
                let answer = try await GooglePlayPartialRefundTests.redeem(client, onlyRented)
                #expect(answer["transaction.rentalEndsAt"] != nil)

                // Google unreachable: whether it is a rental cannot be told, so it is refused for now, never bought.
                let unknown = try play.purchase(signer, productId: "level1")
                try await Self.hold(play, unknown, option: "rent-3d", rented: true)
                let control = try RawHTTPClient(port: try #require(URLComponents(string: play.base)?.port))
                _ = try await PurchaseSteps.post(control, "/_double/fail", #"{"count": 100, "status": 503}"#)
                let unavailable = try await GooglePlayPartialRefundTests.redeem(client, unknown, status: 503)
                #expect(unavailable["error.code"]?.string == "unavailable")
            }
        }
    }

    /// Google's `purchases.productsv2` unreachable: a purchase the ledger already judged (rented, or bought outright)
    /// is answered from the ledger without asking Google again; one never judged is refused for now, and a restore
    /// leaves it out of its answer rather than failing whole.
    @Test(arguments: LedgerEngine.tested)
    func anOutageNeverBlocksPurchasesTheLedgerAlreadyJudged(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            try await GooglePlayFlowTests.withServer(engine, settings: Self.settings(play, signer)) { server in
                let client = try RawHTTPClient(port: server.port)
                let rented = try play.purchase(signer, productId: "level1")
                try await Self.hold(play, rented, option: "rent-3d", rented: true)
                let owned = try play.purchase(signer, productId: "level1")
                try await Self.hold(play, owned, option: "buy", rented: false)
                let rentalEnd = try #require(
                    try await GooglePlayPartialRefundTests.redeem(client, rented)["transaction.rentalEndsAt"]?.string)
                #expect(try await GooglePlayPartialRefundTests.redeem(client, owned)["transaction.rentalEndsAt"] == nil)
                let unknown = try play.purchase(signer, productId: "level1")
                try await Self.hold(play, unknown, option: "rent-3d", rented: true)

                let control = try RawHTTPClient(port: try #require(URLComponents(string: play.base)?.port))
                _ = try await PurchaseSteps.post(control, "/_double/fail", #"{"count": 1000, "status": 503}"#)
                #expect(
                    try await GooglePlayPartialRefundTests.redeem(client, rented)["transaction.rentalEndsAt"]?.string == rentalEnd)
                #expect(try await GooglePlayPartialRefundTests.redeem(client, owned)["transaction.rentalEndsAt"] == nil)
                let refused = try await GooglePlayPartialRefundTests.redeem(client, unknown, status: 503)
                #expect(refused["error.code"]?.string == "unavailable")

                let restored = try await PurchaseSteps.post(
                    client, "/v1/restore",
                    try GooglePlayFlowTests.json([
                        "googlePlayPurchases": [rented, owned, unknown].map { ["purchaseData": $0.data, "signature": $0.signature] }
                    ]))
                #expect(restored.status == 200, "\(restored.text)")
                let transactions = try #require(try PurchaseSteps.object(restored)["transactions"] as? [[String: Any]])
                #expect(Set(transactions.compactMap { $0["id"] as? String }) == [rented.orderId, owned.orderId])
            }
        }
    }

    /// Absurd numbers: a purchase time at the far ends of the range, with the longest rent option, never reaches a
    /// 5xx and never makes a grant outlast the expiration period from its issue.
    @Test(arguments: LedgerEngine.tested)
    func absurdNumbersNeverReachA5xx(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            let settings = Self.settings(play, signer, rental: #"{"rentalPeriod": "P3650D", "expirationPeriod": "P521W"}"#)
            try await GooglePlayFlowTests.withServer(engine, settings: settings) { server in
                let client = try RawHTTPClient(port: server.port)
                // Outside Play's dates (1970 to 9999) the purchase data is malformed; at their ends a rental is
                // long over, or far from over, and its grants last no longer than the expiration period from now.
                let cases: [(Int64, Int)] = [
                    (.max, 400), (.max - 999, 400), (253_402_300_800_000, 400), (-1, 400), (.min, 400),
                    (253_402_300_799_999, 200), (1, 410), (0, 410),
                ]
                for (time, status) in cases {
                    let purchase = try play.purchase(signer, productId: "level1_rental", purchaseTime: time)
                    let answer = try await PurchaseSteps.post(
                        client, "/v1/transactions", try GooglePlayFlowTests.redeemBody(purchase.data, purchase.signature))
                    #expect(answer.status == status, "\(time): \(answer.text)")
                    let body = try JSONAnswer(answer)
                    if status == 410 { #expect(body["error.code"]?.string == "rental-expired", "\(time)") }
                    guard status == 200 else { continue }
                    // Past 9999 (the purchase plus 3650 days), written as the last second of 9999.
                    let end: Int64 = 253_402_300_799
                    #expect(Self.seconds(body["transaction.rentalEndsAt"]?.string) == end)
                    let grantEnd = try #require(Self.seconds(body["downloads.0.grantExpiresAt"]?.string))
                    #expect(grantEnd <= Self.now + 521 * 7 * 86_400)
                }
                // The double refuses a rentOfferDetails that is not an object.
                let control = try RawHTTPClient(port: try #require(URLComponents(string: play.base)?.port))
                for body in [
                    #"{"purchaseToken": "t9", "productId": "level1", "rentOfferDetails": 3}"#,
                    #"{"purchaseToken": "t9", "productId": "level1", "rentOfferDetails": "P3D"}"#,
                ] {
                    #expect(try await PurchaseSteps.post(control, "/_double/purchases", body).status == 400, "\(body)")
                }
            }
        }
    }

    @Test func aMalformedRentOptionStopsTheStart() throws {
        let key = try GooglePlayTestSigner().publicKeyBase64
        func products(_ rental: String) -> String {
            "{\"movie\": {\"product\": \"com.example.level1\", \"rental\": \(rental)}}"
        }
        let cases: [(String, String)] = [
            (products(#"{"rentalPeriod": "3 days", "expirationPeriod": "PT48H"}"#), "googlePlay.products.movie.rental.rentalPeriod"),
            (products(#"{"rentalPeriod": "P3D", "expirationPeriod": "PT48X"}"#), "googlePlay.products.movie.rental.expirationPeriod"),
            (products(#"{"rentalPeriod": "P1M", "expirationPeriod": "PT48H"}"#), "rentalPeriod \"P1M\" names years or months"),
            (products(#"{"rentalPeriod": "P0D", "expirationPeriod": "PT48H"}"#), "must be longer than zero"),
            (products(#"{"rentalPeriod": "P3651D", "expirationPeriod": "PT48H"}"#), "at most 3650 days"),
            (products(#"{"rentalPeriod": "P99999999999999999999D", "expirationPeriod": "PT48H"}"#), "at most 3650 days"),
            (products(#"{"expirationPeriod": "PT48H"}"#), "googlePlay.products.movie.rental.rentalPeriod is required"),
            (products(#"{"rentalPeriod": 3, "expirationPeriod": "PT48H"}"#), "googlePlay.products.movie must be a product id"),
            (products(#""P3D""#), "googlePlay.products.movie must be a product id"),
            (products(#"{"rentalPeriod": "P3D", "expirationPeriod": "PT48H", "purchaseOptionId": ""}"#), "purchaseOptionId must be"),
            (
                products(#"{"rentalPeriod": "P3D", "expirationPeriod": "PT48H", "purchaseOptionId": "rent"}"#),
                "needs googlePlay.developerAPI"
            ),
            (
                "{\"movie\": {\"rental\": {\"rentalPeriod\": \"P3D\", \"expirationPeriod\": \"PT48H\"}}}",
                "googlePlay.products.movie.product must name"
            ),
            ("{\"movie\": 7}", "googlePlay.products.movie must be a product id"),
            ("{\"movie\": {\"product\": \"../x\"}}", "googlePlay.products.movie names"),
        ]
        for (products, expected) in cases {
            let message = LiveServer.configurationRefusal(GooglePlayConfigurationTests.section(keys: "[\"\(key)\"]", products: products))
            #expect(message?.contains(expected) == true, "\(expected): \(message ?? "accepted")")
        }
        let read = try LiveServer.loadConfiguration(
            GooglePlayConfigurationTests.section(
                keys: "[\"\(key)\"]",
                products: products(#"{"rentalPeriod": "P1DT12H", "expirationPeriod": "PT90M"}"#).dropLast()
                    + #", "level2": "com.example.level2"}"#))
        let settings = try #require(read.googlePlay)
        #expect(settings.products == ["movie": "com.example.level1", "level2": "com.example.level2"])
        #expect(settings.rentals["movie"]?.terms == RentalTerms(rentalPeriod: 129_600, expirationPeriod: 5_400))
        #expect(settings.rentals["movie"]?.purchaseOptionId == nil)
    }
}
