@testable import DepotServerTestSupport
import Crypto
import DepotGooglePlayDouble
import DepotTestSupport
import Foundation
import Testing

/// `POST /v1/notifications/googleplay` on live servers, against the Google Play double, on both ledger engines:
/// the push token is required, bad bodies are 400, and a notification revokes only what Google confirms.
@Suite("Google Play notifications on live servers")
struct GooglePlayNotificationTests {
    static let token = "push-secret-\(UUID().uuidString)"
    static var tokenDigest: String { SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined() }

    /// A Pub/Sub push body carrying `notification` (the DeveloperNotification's JSON members).
    static func push(_ notification: String, packageName: String = GooglePlayFixture.packageName) -> String {
        GooglePlaySteps.push(notification, packageName: packageName)
    }

    /// Runs `body` with the Google Play double, a signer of purchases, and a client of a live server on `engine`
    /// that takes notifications pushed with the test's token.
    static func withNotifiedServer(
        _ engine: LedgerEngine, name: String = #function,
        _ body: (GooglePlayDoubleFixture, GooglePlayTestSigner, RawHTTPClient) async throws -> Void
    ) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            let settings = play.settings(signer, notificationTokenSHA256: tokenDigest)
            try await GooglePlayFlowTests.withServer(engine, settings: settings, name: name) { server in
                try await body(play, signer, try RawHTTPClient(port: server.port))
            }
        }
    }

    static func post(_ client: RawHTTPClient, _ body: String, token: String? = Self.token) async throws -> RawHTTPClient.Response {
        let query = token.map { "?token=\($0)" } ?? ""
        return try await PurchaseSteps.post(client, "/v1/notifications/googleplay" + query, body)
    }

    @Test(arguments: LedgerEngine.tested)
    func aNotificationRevokesOnlyWhatGoogleConfirms(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            let settings = play.settings(signer, notificationTokenSHA256: Self.tokenDigest)
            try await GooglePlayFlowTests.withServer(engine, settings: settings) { server in
                let client = try RawHTTPClient(port: server.port)
                let test = Self.push("\"testNotification\":{\"version\":\"1.0\"}")
                #expect(try await Self.post(client, test, token: nil).status == 401)
                #expect(try await Self.post(client, test, token: "wrong").status == 403)
                #expect(try await Self.post(client, "{\"message\": {\"data\": \"%%%\"}}").status == 400)
                #expect(try await Self.post(client, "{\"message\": {}}").status == 400)
                // Kinds Depot does not follow, and another app's notifications on a shared topic, are taken (200) and
                // left alone: any other answer would have Pub/Sub deliver them again for days.
                let unknown = try await Self.post(client, Self.push("\"futureKindOfNotification\":{}"))
                #expect(unknown.status == 200 && unknown.text.contains("\"ignored\""), "\(unknown.text)")
                let other = try await Self.post(client, Self.push("\"testNotification\":{}", packageName: "com.other.app"))
                #expect(other.status == 200 && other.text.contains("\"ignored\""), "\(other.text)")
                let answered = try await Self.post(client, test)
                #expect(answered.status == 200 && answered.text.contains("\"test\""), "\(answered.text)")

                let level = try play.purchase(signer, productId: "level1")
                let (_, _, url) = try await GooglePlaySteps.buy(client, level, contentId: "com.example.level1")
                let cancelled =
                    "\"oneTimeProductNotification\":{\"version\":\"1.0\",\"notificationType\":2,\"purchaseToken\":\"\(level.token)\",\"sku\":\"level1\"}"
                // Google still holds the purchase as bought: a notification saying otherwise changes nothing.
                let forged = try await Self.post(client, Self.push(cancelled))
                #expect(forged.status == 200 && forged.text.contains("\"unchanged\""), "\(forged.text)")
                #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
                // Google cancels it: the same notification now revokes, and the grant stops at once.
                var held = try #require(play.double.purchase(token: level.token))
                held.purchaseState = 1
                play.double.holdPurchase(held)
                let revoked = try await Self.post(client, Self.push(cancelled))
                #expect(revoked.status == 200 && revoked.text.contains("\"revoked\""), "\(revoked.text)")
                #expect(try await client.request(RawHTTPClient.get(url)).status == 403)
                // Delivered again by Pub/Sub, nothing more happens.
                let again = try await Self.post(client, Self.push(cancelled))
                #expect(again.text.contains("\"unchanged\""), "\(again.text)")

                // A voided purchase is revoked once the voided list (asked at once) shows it.
                let coins = try play.purchase(signer, productId: "level1")
                let (_, _, coinsURL) = try await GooglePlaySteps.buy(client, coins, contentId: "com.example.level1")
                let voided =
                    "\"voidedPurchaseNotification\":{\"purchaseToken\":\"\(coins.token)\",\"orderId\":\"\(coins.orderId)\",\"productType\":2,\"refundType\":1}"
                let notListed = try await Self.post(client, Self.push(voided))
                #expect(notListed.text.contains("\"unchanged\""), "\(notListed.text)")
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                play.double.holdVoided(
                    GooglePlayDoubleVoidedPurchase(
                        purchaseToken: coins.token, orderId: coins.orderId, purchaseTimeMillis: now - 60_000, voidedTimeMillis: now))
                let listed = try await Self.post(client, Self.push(voided))
                #expect(listed.text.contains("\"revoked\""), "\(listed.text)")
                #expect(try await client.request(RawHTTPClient.get(coinsURL)).status == 403)
            }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func anAuthenticatedPushIsTakenWithGooglesSignature(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        let audience = "https://depot.example.com/v1/notifications/googleplay"
        try await GooglePlayDoubleFixture.with { play in
            try await GooglePlayFlowTests.withServer(engine, settings: play.settings(signer, pushAudience: audience)) { server in
                let client = try RawHTTPClient(port: server.port)
                let test = Self.push("\"testNotification\":{\"version\":\"1.0\"}")
                func post(bearer: String) async throws -> RawHTTPClient.Response {
                    try await PurchaseSteps.post(client, "/v1/notifications/googleplay", test, ["Authorization: Bearer \(bearer)"])
                }
                let accepted = try await post(bearer: try play.pushToken(audience: audience))
                #expect(accepted.status == 200 && accepted.text.contains("\"test\""), "\(accepted.text)")
                // Another audience, another account, an expired token, a changed byte, or none at all: refused.
                #expect(try await post(bearer: try play.pushToken(audience: "https://elsewhere.example.com/")).status == 403)
                #expect(try await post(bearer: try play.pushToken(audience: audience, email: "someone@example.com")).status == 403)
                #expect(try await post(bearer: try play.pushToken(audience: audience, expiresIn: -3600)).status == 403)
                var forged = Array(try play.pushToken(audience: audience).utf8)
                forged[forged.count / 2] = forged[forged.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                #expect(try await post(bearer: String(decoding: forged, as: UTF8.self)).status == 403)
                #expect(try await post(bearer: "not-a-jwt").status == 403)
                #expect(try await Self.post(client, test, token: nil).status == 401)
            }
        }
    }

    @Test func withoutTheSectionNotificationsAreNotTaken() async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayFlowTests.withServer(.sqlite, settings: try GooglePlayFixture.settings(signer)) { server in
            let client = try RawHTTPClient(port: server.port)
            let answer = try await Self.post(client, Self.push("\"testNotification\":{}"))
            #expect(answer.status == 404 && answer.text.contains("store-not-configured"))
        }
    }
}
