@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Google Play purchases through a live server, on both ledger engines: the genuine purchase kept outside the
/// repository, and purchases signed with a key made for the test.
@Suite("Google Play purchases on a live server")
struct GooglePlayFlowTests {
    static let packageName = GooglePlayFixture.packageName

    /// Runs `body` on a server with `settings` over `engine`'s ledger.
    static func withServer(
        _ engine: LedgerEngine, settings: String, name: String = #function, _ body: (LiveServer) async throws -> Void
    ) async throws {
        try await GooglePlayLiveServer.with(engine, settings: settings, name: name, body)
    }

    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    static func redeemBody(_ data: String, _ signature: String) throws -> String {
        try json(["googlePlay": ["purchaseData": data, "signature": signature]])
    }

    @Test(arguments: LedgerEngine.tested)
    func theGenuinePurchaseRedeemsDownloadsAndFinishes(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await Self.withServer(engine, settings: try GooglePlayFixture.settings(signer)) { server in
            let client = try RawHTTPClient(port: server.port)
            let data = try GooglePlayFixture.genuinePurchaseData()
            let signature = try GooglePlayFixture.genuineSignature()

            // One changed byte is refused, and records nothing.
            let tampered = data.replacingOccurrences(of: "\"purchaseState\":0", with: "\"purchaseState\":1")
            let refused = try await PurchaseSteps.post(client, "/v1/transactions", try Self.redeemBody(tampered, signature))
            #expect(refused.status == 403)
            #expect(refused.text.contains("signature-invalid"))

            let redeemed = try await PurchaseSteps.post(client, "/v1/transactions", try Self.redeemBody(data, signature))
            #expect(redeemed.status == 200, "\(redeemed.text)")
            let body = try PurchaseSteps.object(redeemed)
            let transaction = try #require(body["transaction"] as? [String: Any])
            let id = try #require(transaction["id"] as? String)
            #expect(id.count == 64, "a purchase without an order id is named by its token's SHA-256")
            #expect(transaction["store"] as? String == "google-play")
            #expect(transaction["productId"] as? String == "com.example.level1")
            let token = try #require(transaction["finishToken"] as? String)
            let download = try #require((body["downloads"] as? [[String: Any]])?.first)
            let digest = try #require(download["digest"] as? String)
            let url = try #require(download["url"] as? String)
            let bundle = try await client.request(RawHTTPClient.get(url))
            #expect(bundle.status == 200)
            #expect(bundle.body == (try server.bundleBytes(digest)))

            let finished = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish",
                try Self.json([
                    "finishToken": token, "delivered": [["contentId": "com.example.level1", "digest": digest]],
                ]))
            #expect(finished.status == 200, "\(finished.text)")
            let confirmation = try PurchaseSteps.object(finished)
            #expect(confirmation["storeFinish"] as? String == "app")
            #expect((confirmation["storeFinishDetail"] as? String)?.contains("acknowledgePurchase") == true)
            #expect(confirmation["appleFinish"] == nil, "a Google Play purchase is not Apple's to finish")

            // Redeemed again (a reinstall), a non-consumable still downloads; the ledger kept its store.
            let again = try PurchaseSteps.object(
                try await PurchaseSteps.post(client, "/v1/transactions", try Self.redeemBody(data, signature)))
            #expect((again["downloads"] as? [[String: Any]])?.first?["digest"] as? String == digest)
            #expect((again["transaction"] as? [String: Any])?["state"] as? String == "finished")
            #expect((again["transaction"] as? [String: Any])?["store"] as? String == "google-play")
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aSecondPurchaseUnderAnOrderIdIsRefusedAndTheFirstKept(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await Self.withServer(engine, settings: try GooglePlayFixture.settings(signer)) { server in
            let client = try RawHTTPClient(port: server.port)
            let orderId = "GPA.5555-6666-7777-88888"
            let level = GooglePlayTestSigner.purchaseData(orderId: orderId, packageName: Self.packageName, productId: "level1")
            let first = try await PurchaseSteps.post(client, "/v1/transactions", try Self.redeemBody(level, try signer.sign(level)))
            #expect(first.status == 200, "\(first.text)")
            // Signed, but another purchase (the coins, another token) under the same order id: refused, nothing kept.
            let coins = GooglePlayTestSigner.purchaseData(orderId: orderId, packageName: Self.packageName, productId: "coins")
            let second = try await PurchaseSteps.post(client, "/v1/transactions", try Self.redeemBody(coins, try signer.sign(coins)))
            #expect(second.status == 409, "\(second.text)")
            #expect(second.text.contains("transaction-conflict"), "\(second.text)")
            let stored = try #require(try await server.application.ledger.transaction(id: orderId))
            #expect(stored.transaction.productId == "com.example.level1")
            // A restore presenting it restores nothing for it, and still answers.
            let restored = try await PurchaseSteps.post(
                client, "/v1/restore",
                try Self.json(["googlePlayPurchases": [["purchaseData": coins, "signature": try signer.sign(coins)]]]))
            #expect(restored.status == 200, "\(restored.text)")
            #expect((try PurchaseSteps.object(restored)["downloads"] as? [Any])?.isEmpty == true, "\(restored.text)")
            let again = try await PurchaseSteps.post(client, "/v1/transactions", try Self.redeemBody(level, try signer.sign(level)))
            #expect(again.status == 200, "\(again.text)")
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aConsumableIsDeliveredOnceAndAPendingPurchaseNotAtAll(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await Self.withServer(engine, settings: try GooglePlayFixture.settings(signer)) { server in
            let client = try RawHTTPClient(port: server.port)
            let pending = GooglePlayTestSigner.purchaseData(
                orderId: "GPA.1111-2222-3333-44444", packageName: Self.packageName, productId: "coins", purchaseState: 2)
            let waiting = try await PurchaseSteps.post(client, "/v1/transactions", try Self.redeemBody(pending, try signer.sign(pending)))
            #expect(waiting.status == 409)
            #expect(waiting.text.contains("purchase-pending"))

            let data = GooglePlayTestSigner.purchaseData(
                orderId: "GPA.1111-2222-3333-44444", packageName: Self.packageName, productId: "coins")
            let body = try Self.redeemBody(data, try signer.sign(data))
            let redeemed = try PurchaseSteps.object(try await PurchaseSteps.post(client, "/v1/transactions", body))
            let transaction = try #require(redeemed["transaction"] as? [String: Any])
            #expect(transaction["id"] as? String == "GPA.1111-2222-3333-44444")
            let token = try #require(transaction["finishToken"] as? String)
            let digest = try #require((redeemed["downloads"] as? [[String: Any]])?.first?["digest"] as? String)
            let finished = try await PurchaseSteps.post(
                client, "/v1/transactions/GPA.1111-2222-3333-44444/finish",
                try Self.json(["finishToken": token, "delivered": [["contentId": "com.example.coins", "digest": digest]]]))
            #expect(finished.status == 200, "\(finished.text)")
            let again = try await PurchaseSteps.post(client, "/v1/transactions", body)
            #expect(again.status == 409)
            #expect(again.text.contains("consumable-finished"))
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aRestoreTakesBothStoresPurchasesTogether(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await Self.withServer(engine, settings: try GooglePlayFixture.settings(signer)) { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, appleId) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let data = GooglePlayTestSigner.purchaseData(
                orderId: "GPA.5555-6666-7777-88888", packageName: Self.packageName, productId: "level1")
            let play = ["purchaseData": data, "signature": try signer.sign(data)]
            let restored = try await PurchaseSteps.post(
                client, "/v1/restore", try Self.json(["signedTransactions": [jws], "googlePlayPurchases": [play, play]]))
            #expect(restored.status == 200, "\(restored.text)")
            let body = try PurchaseSteps.object(restored)
            let transactions = try #require(body["transactions"] as? [[String: Any]])
            #expect(Set(transactions.compactMap { $0["id"] as? String }) == [appleId, "GPA.5555-6666-7777-88888"])
            #expect(Set(transactions.compactMap { $0["store"] as? String }) == ["app-store", "google-play"])

            // A Play-only restore needs no signedTransactions.
            let playOnly = try await PurchaseSteps.post(client, "/v1/restore", try Self.json(["googlePlayPurchases": [play]]))
            #expect(playOnly.status == 200, "\(playOnly.text)")
        }
    }

    @Test func withoutTheSectionGooglePlayPurchasesAreNotTaken() async throws {
        let signer = try GooglePlayTestSigner()
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let data = GooglePlayTestSigner.purchaseData(packageName: Self.packageName)
            let answer = try await PurchaseSteps.post(client, "/v1/transactions", try Self.redeemBody(data, try signer.sign(data)))
            #expect(answer.status == 404)
            #expect(answer.text.contains("store-not-configured"))
            let restore = try await PurchaseSteps.post(
                client, "/v1/restore",
                try Self.json(["googlePlayPurchases": [["purchaseData": data, "signature": try signer.sign(data)]]]))
            #expect(restore.status == 404)

            let neither = try await PurchaseSteps.post(client, "/v1/transactions", "{}")
            #expect(neither.status == 400)
            #expect(neither.text.contains("googlePlay"))
            let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let both = try await PurchaseSteps.post(
                client, "/v1/transactions",
                try Self.json(["signedTransaction": jws, "googlePlay": ["purchaseData": data, "signature": "AAAA"]]))
            #expect(both.status == 400)
        }
    }
}

/// Google Play's three-day limit, for purchases nobody confirmed: listed with their deadline, counted in a
/// metric once less than a day is left.
@Suite("Google Play purchases nearing Google's deadline")
struct GooglePlayDeadlineTests {
    @Test(arguments: LedgerEngine.tested)
    func anUnconfirmedPurchaseIsListedWithItsDeadlineAndCountedWhenNear(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayFlowTests.withServer(engine, settings: try GooglePlayFixture.settings(signer)) { server in
            let client = try RawHTTPClient(port: server.port)
            let admin = "Authorization: Bearer \(LiveServer.adminToken)"
            // Bought 60 hours ago (12 left) and an hour ago (71 left); neither confirmed.
            let now = Int64(Date().timeIntervalSince1970) * 1000
            var deadlines: [String: Int64] = [:]
            for (order, hoursAgo) in [("GPA.1000-0000-0000-00060", Int64(60)), ("GPA.1000-0000-0000-00001", Int64(1))] {
                let purchaseTime = now - hoursAgo * 3_600_000
                let data = GooglePlayTestSigner.purchaseData(
                    orderId: order, packageName: GooglePlayFixture.packageName, productId: "level1", purchaseTime: purchaseTime)
                let redeemed = try await PurchaseSteps.post(
                    client, "/v1/transactions", try GooglePlayFlowTests.redeemBody(data, try signer.sign(data)))
                #expect(redeemed.status == 200, "\(redeemed.text)")
                deadlines[order] = purchaseTime / 1000 + 3 * 86_400
            }
            let (jws, appleId) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            #expect(try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}").status == 200)

            let unfinished = try PurchaseSteps.object(
                try await client.request(RawHTTPClient.get("/v1/admin/deliveries/unfinished?olderThan=0", [admin])))
            let rows = try #require(unfinished["deliveries"] as? [[String: Any]])
            var listed: [String: String] = [:]
            for row in rows { listed[row["transactionId"] as? String ?? ""] = row["storeDeadline"] as? String ?? "-" }
            for (order, deadline) in deadlines {
                #expect(listed[order] == UTCTimestamp.format(deadline), "\(order): \(listed[order] ?? "not listed")")
            }
            #expect(listed[appleId] == "-", "an App Store transaction has no store deadline")
            let metrics = try await MetricsTests.scrape(server)
            #expect(metrics.value("depot_google_play_unconfirmed_near_deadline") == 1)
        }
    }
}
