@testable import DepotServerTestSupport
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// StoreKit 1 app receipts through a live server: genuine Apple-signed receipts verified with Apple Root CA at
/// their creation date, redeemed, finished and restored through the flows signed transactions take.
@Suite("App receipts on a live server")
struct AppReceiptFlowTests {
    /// A receipt, the product types of its records and a pack per product published at `publishedAt`.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var products: [String: String]
        var publishedAt: String
        var testDescription: String { name }
    }

    static let cases = [
        Case(
            name: "production-2018-qrcodes-two-nonconsumables",
            products: ["codeSharingUnlockable": "nonConsumable", "saveScannedCodeUnlockable": "nonConsumable"],
            publishedAt: "2018-01-01T00:00:00Z"),
        Case(name: "sandbox-2016-zhihu-consumable", products: ["com.zhihu.test.test_1": "consumable"], publishedAt: "2016-01-01T00:00:00Z"),
        // Within the first record's week: 2023-05-09T23:20:55Z to 2023-05-16T23:20:55Z.
        Case(
            name: "production-2024-pure-subscriptions",
            products: ["org.getpure.pure.Week": "autoRenewable", "org.getpure.pure.Month": "autoRenewable"],
            publishedAt: "2023-05-12T00:00:00Z"),
        // Within the first record's sandbox year (36 minutes): 2025-12-26T17:43:07Z to 18:19:07Z.
        Case(
            name: "sandbox-2025-weeka-subscription",
            products: ["dev.bonzer.weeka.app.subscription.pro.annual": "autoRenewable"], publishedAt: "2025-12-26T18:00:00Z"),
        // Within the first record's five minutes (a sandbox month): 2019-12-10T12:54:58Z to 12:59:58Z.
        Case(
            name: "sandbox-2020-nutcall-187-subscriptions",
            products: [
                "com.nutcallalert.inapp.optimum": "autoRenewable", "com.nutcallalert.inapp.pro": "autoRenewable",
                "com.nutcallalert.inapp.lite": "autoRenewable",
            ],
            publishedAt: "2019-12-10T12:57:00Z"),
    ]

    /// Runs `body` on a server configured for `receipt`'s app, over `engine`'s ledger, with `packs`.
    static func withServer(
        _ engine: LedgerEngine, receipt: String, products: [String: String], packs: [LiveServer.PackSpec],
        name: String = #function, _ body: (LiveServer) async throws -> Void
    ) async throws {
        let bundleId = try #require(try AppReceiptFixture.fields(receipt)["bundle_id"] as? String)
        let configure: (ScratchDirectory) throws -> Void = { scratch in
            try AppReceiptFixture.configure(
                scratch, bundleId: bundleId, products: products.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }
        try await LiveServer.with(engine: engine, name, packs: packs, configure: configure, body: body)
    }

    /// A pack for each product, published at `publishedAt`.
    static func packs(_ products: [String: String], publishedAt: String) -> [LiveServer.PackSpec] {
        products.keys.sorted().map { id in
            LiveServer.PackSpec(
                directory: "receipts/\(id)", productId: id, contentId: id + ".content", publishedAt: publishedAt,
                files: ["content.txt": Array("content of \(id)".utf8)])
        }
    }

    static func redeem(_ client: RawHTTPClient, _ receipt: String, transactionId: String) async throws -> RawHTTPClient.Response {
        try await PurchaseSteps.post(
            client, "/v1/transactions", try AppReceiptFixture.json(["appReceipt": receipt, "transactionId": transactionId]))
    }

    @Test(arguments: cases)
    func theFirstRecordRedeemsWithDownloadsAndFinishes(receiptCase: Case) async throws {
        let records = try #require(try AppReceiptFixture.fields(receiptCase.name)["in_app"] as? [[String: Any]])
        let record = try #require(records.first)
        let id = try #require(record["transaction_id"] as? String)
        let product = try #require(record["product_id"] as? String)
        try await Self.withServer(
            .sqlite, receipt: receiptCase.name, products: receiptCase.products,
            packs: Self.packs(receiptCase.products, publishedAt: receiptCase.publishedAt)
        ) { server in
            let client = try RawHTTPClient(port: server.port)
            let receipt = try AppReceiptFixture.base64(receiptCase.name)
            let redeemed = try await Self.redeem(client, receipt, transactionId: id)
            #expect(redeemed.status == 200, "\(redeemed.text)")
            let body = try PurchaseSteps.object(redeemed)
            let transaction = try #require(body["transaction"] as? [String: Any])
            #expect(transaction["id"] as? String == id)
            #expect(transaction["productId"] as? String == product)
            #expect(transaction["originalId"] as? String == record["original_transaction_id"] as? String)
            #expect(transaction["store"] as? String == "app-store")
            #expect(transaction["proof"] as? String == "receipt")
            let download = try #require((body["downloads"] as? [[String: Any]])?.first)
            #expect(download["contentId"] as? String == product + ".content")
            let digest = try #require(download["digest"] as? String)
            let bundle = try await client.request(RawHTTPClient.get(try #require(download["url"] as? String)))
            #expect(bundle.status == 200)
            #expect(bundle.body == (try server.bundleBytes(digest)))

            // The same receipt again: the same transaction, still pending.
            let again = try await Self.redeem(client, receipt, transactionId: id)
            #expect(again.status == 200, "\(again.text)")
            #expect((try PurchaseSteps.object(again)["transaction"] as? [String: Any])?["id"] as? String == id)

            let token = try #require(transaction["finishToken"] as? String)
            let finished = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish",
                try AppReceiptFixture.json(["finishToken": token, "delivered": [["contentId": product + ".content", "digest": digest]]]))
            #expect(finished.status == 200, "\(finished.text)")
            #expect((try PurchaseSteps.object(finished)["transaction"] as? [String: Any])?["state"] as? String == "finished")

            let absent = try await Self.redeem(client, receipt, transactionId: "1")
            #expect(absent.status == 404)
            #expect(absent.text.contains("transaction-not-in-receipt"))
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aReceiptWithoutPurchasesVerifiesAndHoldsNone(engine: LedgerEngine) async throws {
        let name = "production-2015-kargotakip-no-iap"
        try await Self.withServer(engine, receipt: name, products: [:], packs: []) { server in
            let client = try RawHTTPClient(port: server.port)
            let absent = try await Self.redeem(client, try AppReceiptFixture.base64(name), transactionId: "1000000000000001")
            #expect(absent.status == 404, "\(absent.text)")
            #expect(absent.text.contains("transaction-not-in-receipt"))
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func theSubscriptionReceiptRestoresIssuesWithinItsPeriods(engine: LedgerEngine) async throws {
        let name = "sandbox-2020-nutcall-187-subscriptions"
        let products = try #require(Self.cases.first { $0.name == name }).products
        // One issue within the first record's period, one between two periods, one after the last.
        let packs = [
            LiveServer.PackSpec(
                directory: "issues/within", productId: "com.nutcallalert.inapp.pro", contentId: "issue.within",
                publishedAt: "2019-12-10T12:57:00Z", files: ["a.txt": Array("within".utf8)]),
            LiveServer.PackSpec(
                directory: "issues/before", productId: "com.nutcallalert.inapp.pro", contentId: "issue.before",
                publishedAt: "2019-01-01T00:00:00Z", files: ["b.txt": Array("before".utf8)]),
            LiveServer.PackSpec(
                directory: "issues/after", productId: "com.nutcallalert.inapp.optimum", contentId: "issue.after",
                publishedAt: "2021-06-01T00:00:00Z", files: ["c.txt": Array("after".utf8)]),
        ]
        try await Self.withServer(engine, receipt: name, products: products, packs: packs) { server in
            let client = try RawHTTPClient(port: server.port)
            let restored = try await PurchaseSteps.post(
                client, "/v1/restore", try AppReceiptFixture.json(["appReceipt": try AppReceiptFixture.base64(name)]))
            #expect(restored.status == 200, "\(restored.text)")
            let body = try PurchaseSteps.object(restored)
            let downloads = try #require(body["downloads"] as? [[String: Any]])
            #expect(downloads.compactMap { $0["contentId"] as? String } == ["issue.within"])
            let transactions = try #require(body["transactions"] as? [[String: Any]])
            #expect(transactions.count == 187)
            #expect(transactions.allSatisfy { $0["proof"] as? String == "receipt" && $0["store"] as? String == "app-store" })
        }
    }

    @Test func refusalsCarryTheirCodes() async throws {
        let name = "production-2024-pure-subscriptions"
        let products = try #require(Self.cases.first { $0.name == name }).products
        try await Self.withServer(
            .sqlite, receipt: name, products: products, packs: Self.packs(products, publishedAt: "2023-05-12T00:00:00Z")
        ) {
            server in
            let client = try RawHTTPClient(port: server.port)
            let id = "340001196262039"
            let bytes = try AppReceiptFixture.bytes(name)
            let cases: [(receipt: String, status: Int, code: String)] = [
                (Data(try AppReceiptFixture.bytes("tampered-" + name)).base64EncodedString(), 403, "signature-invalid"),
                (try AppReceiptFixture.base64("xcode-2023-backyardbirds-one-iap"), 403, "chain-untrusted"),
                (try AppReceiptFixture.base64("sandbox-2016-zhihu-consumable"), 403, "bundle-id-mismatch"),
                (Data(bytes.dropLast(500)).base64EncodedString(), 400, "receipt-malformed"),
                (Data(bytes + [0]).base64EncodedString(), 400, "receipt-malformed"),
                ("not base64!", 400, "receipt-malformed"),
            ]
            for refused in cases {
                let answer = try await Self.redeem(client, refused.receipt, transactionId: id)
                #expect(answer.status == refused.status, "\(answer.text)")
                #expect(answer.text.contains(refused.code), "\(answer.text)")
            }
            let withoutId = try await PurchaseSteps.post(
                client, "/v1/transactions", try AppReceiptFixture.json(["appReceipt": try AppReceiptFixture.base64(name)]))
            #expect(withoutId.status == 400)
            let both = try await PurchaseSteps.post(
                client, "/v1/transactions",
                try AppReceiptFixture.json([
                    "appReceipt": try AppReceiptFixture.base64(name), "transactionId": id, "signedTransaction": "x.y.z",
                ]))
            #expect(both.status == 400)
            // The genuine receipt still redeems after the refusals.
            #expect(try await Self.redeem(client, try AppReceiptFixture.base64(name), transactionId: id).status == 200)
        }
    }
}

/// Receipts signed by the development receipt root through a live server: one transaction whichever proof
/// presents it, a cancellation revokes, a restore by receipt.
@Suite("Development app receipts on a live server")
struct DevelopmentReceiptFlowTests {
    static func withServer(_ engine: LedgerEngine, name: String = #function, _ body: (LiveServer) async throws -> Void) async throws {
        switch engine {
        case .sqlite:
            try await LiveServer.with(name, body: body)
        case .postgres:
            try await PostgresTestDatabase.with(name) { database in
                try await LiveServer.with(name, settings: "\"ledger\": {\"url\": \"\(database.url)\"}", body: body)
            }
        }
    }

    static func redeem(_ client: RawHTTPClient, _ receipt: String, _ id: String) async throws -> RawHTTPClient.Response {
        try await PurchaseSteps.post(client, "/v1/transactions", try AppReceiptFixture.json(["appReceipt": receipt, "transactionId": id]))
    }

    @Test(arguments: LedgerEngine.tested)
    func aTransactionSeenThroughAJWSAndAReceiptIsOneAndACancellationRevokesIt(engine: LedgerEngine) async throws {
        try await Self.withServer(engine) { server in
            let client = try RawHTTPClient(port: server.port)
            let id = "2000000000777001"
            let signed = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") { $0.transactionId = id }
            let first = try await PurchaseSteps.post(
                client, "/v1/transactions", try AppReceiptFixture.json(["signedTransaction": signed.jws]))
            #expect(first.status == 200, "\(first.text)")
            let download = try #require((try PurchaseSteps.object(first)["downloads"] as? [[String: Any]])?.first)
            let url = try #require(download["url"] as? String)

            // The same transaction through an app receipt: the same ledger transaction.
            let receipt = try AppReceiptFixture.sign(server.application, product: "com.example.level1") { $0.transactionId = id }
            let second = try await Self.redeem(client, receipt.receipt, id)
            #expect(second.status == 200, "\(second.text)")
            let transaction = try #require(try PurchaseSteps.object(second)["transaction"] as? [String: Any])
            #expect(transaction["id"] as? String == id)
            #expect(transaction["proof"] as? String == "receipt")
            #expect(transaction["state"] as? String == "pending")

            // Another product under the same id is refused, as for a JWS.
            let other = try AppReceiptFixture.sign(server.application, product: "com.example.premium") { $0.transactionId = id }
            let conflict = try await Self.redeem(client, other.receipt, id)
            #expect(conflict.text.contains("transaction-conflict"), "\(conflict.text)")

            // A later receipt with a cancellation date revokes it: refused, and its grants stop working.
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            let cancelled = try AppReceiptFixture.sign(server.application, product: "com.example.level1") {
                $0.transactionId = id
                $0.cancellationDate = $0.purchaseDate
                $0.creationDate += 1_000
            }
            let revoked = try await Self.redeem(client, cancelled.receipt, id)
            #expect(revoked.status == 410, "\(revoked.text)")
            #expect(revoked.text.contains("revoked"))
            #expect(try await client.request(RawHTTPClient.get(url)).status == 403)

            // A restore by the cancelled receipt restores nothing; a fresh purchase's receipt restores it.
            let restoreRevoked = try await PurchaseSteps.post(
                client, "/v1/restore", try AppReceiptFixture.json(["appReceipt": cancelled.receipt]))
            #expect(restoreRevoked.status == 200, "\(restoreRevoked.text)")
            #expect((try PurchaseSteps.object(restoreRevoked)["transactions"] as? [Any])?.isEmpty == true)
            let fresh = try AppReceiptFixture.sign(server.application, product: "com.example.premium")
            let restored = try await PurchaseSteps.post(client, "/v1/restore", try AppReceiptFixture.json(["appReceipt": fresh.receipt]))
            #expect(restored.status == 200, "\(restored.text)")
            let transactions = try #require(try PurchaseSteps.object(restored)["transactions"] as? [[String: Any]])
            #expect(transactions.map { $0["id"] as? String } == [fresh.id])
        }
    }
}
