@testable import DepotServerTestSupport
import DepotAppStoreDouble
import DepotCore
import DepotLedger
import DepotServer
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// With the App Store Server API configured, Apple decides a StoreKit 1 receipt's purchases: after the receipt
/// verifies, Get Transaction Info is asked (here the local App Store double), and its signed answer decides the
/// revocation and the subscription period; when it cannot be asked, the redeem is answered 503 and nothing is
/// recorded.
@Suite("App receipts with the App Store Server API")
struct AppReceiptAppStoreTests {
    /// Runs `body` on a server sending Production and Sandbox calls to the double, over `engine`'s ledger.
    static func withServer(
        _ engine: LedgerEngine, name: String = #function, _ body: (LiveServer, AppStoreDoubleFixture) async throws -> Void
    ) async throws {
        try await AppStoreDoubleFixture.with(name) { appStore in
            let settings = appStore.settings()
            switch engine {
            case .sqlite:
                try await LiveServer.with(name, settings: settings) { server in try await body(server, appStore) }
            case .postgres:
                try await PostgresTestDatabase.with(name) { database in
                    try await LiveServer.with(name, settings: settings + ", \"ledger\": {\"url\": \"\(database.url)\"}") { server in
                        try await body(server, appStore)
                    }
                }
            }
        }
    }

    static func redeem(_ client: RawHTTPClient, _ receipt: String, _ id: String) async throws -> RawHTTPClient.Response {
        try await PurchaseSteps.post(client, "/v1/transactions", try AppReceiptFixture.json(["appReceipt": receipt, "transactionId": id]))
    }

    /// The Get Transaction Info calls the double received for `id`.
    static func lookups(_ appStore: AppStoreDoubleFixture, _ id: String) -> Int {
        appStore.double.requests.filter { $0.method == "GET" && $0.path == "/inApps/v1/transactions/\(id)" }.count
    }

    @Test(arguments: LedgerEngine.tested)
    func appleDecidesRevocationAndAnUnansweredLookupIsA503(engine: LedgerEngine) async throws {
        try await Self.withServer(engine) { server, appStore in
            let client = try RawHTTPClient(port: server.port)
            let ledger = server.application.ledger
            // The receipt holds a plain purchase, without a cancellation.
            let receipt = try AppReceiptFixture.sign(server.application, product: "com.example.level1")

            // Apple cannot be asked: 503 with Apple's Retry-After, nothing recorded.
            appStore.double.failNext(.init(count: 1, status: 503, retryAfter: 7))
            let down = try await Self.redeem(client, receipt.receipt, receipt.id)
            #expect(down.status == 503, "\(down.text)")
            #expect(down.text.contains("store-unavailable"), "\(down.text)")
            #expect(down.value("Retry-After") == "7")
            #expect(try await ledger.transaction(id: receipt.id) == nil)

            // Apple does not know the transaction: refused, nothing recorded.
            let unknown = try await Self.redeem(client, receipt.receipt, receipt.id)
            #expect(unknown.status == 404, "\(unknown.text)")
            #expect(unknown.text.contains("transaction-not-at-store"), "\(unknown.text)")
            #expect(try await ledger.transaction(id: receipt.id) == nil)

            // Apple holds it revoked: the receipt without a cancellation date is refused as revoked.
            let purchasedAt = Int64(Date().timeIntervalSince1970) * 1000
            let revoked = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
                $0.transactionId = receipt.id
                $0.purchaseDate = purchasedAt - 60_000
                $0.revocationDate = purchasedAt
            }
            appStore.double.holdTransaction(receipt.id, signedTransactionInfo: revoked.jws)
            let refused = try await Self.redeem(client, receipt.receipt, receipt.id)
            #expect(refused.status == 410, "\(refused.text)")
            #expect(refused.text.contains("revoked"), "\(refused.text)")
            #expect(try await ledger.transaction(id: receipt.id)?.transaction.revocationDate == purchasedAt)
            #expect(Self.lookups(appStore, receipt.id) == 3)

            // A restore by the same receipt restores nothing Apple revoked.
            let restored = try await PurchaseSteps.post(client, "/v1/restore", try AppReceiptFixture.json(["appReceipt": receipt.receipt]))
            #expect(restored.status == 200, "\(restored.text)")
            #expect((try PurchaseSteps.object(restored)["transactions"] as? [Any])?.isEmpty == true)
            #expect(Self.lookups(appStore, receipt.id) == 4)

            // A restore while Apple cannot be asked: 503, and a fresh purchase's receipt records nothing.
            let fresh = try AppReceiptFixture.sign(server.application, product: "com.example.premium")
            appStore.double.failNext(.init(count: 1, status: 500, retryAfter: nil))
            let unavailable = try await PurchaseSteps.post(client, "/v1/restore", try AppReceiptFixture.json(["appReceipt": fresh.receipt]))
            #expect(unavailable.status == 503, "\(unavailable.text)")
            #expect(unavailable.text.contains("store-unavailable"), "\(unavailable.text)")
            #expect(unavailable.value("Retry-After") == "10")
            #expect(try await ledger.transaction(id: fresh.id) == nil)
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func appleDecidesTheSubscriptionPeriod(engine: LedgerEngine) async throws {
        try await Self.withServer(engine) { server, appStore in
            let client = try RawHTTPClient(port: server.port)
            // The receipt says the period ended yesterday; Apple holds it extended to next week.
            let now = Int64(Date().timeIntervalSince1970) * 1000
            let receipt = try AppReceiptFixture.sign(server.application, product: "com.example.monthly", type: "autoRenewable") {
                $0.purchaseDate = (now - 31 * 86_400_000) / 1000 * 1000
                $0.expiresDate = (now - 86_400_000) / 1000 * 1000
            }
            let extended = (now + 7 * 86_400_000) / 1000 * 1000
            let answer = try PurchaseSteps.sign(server, product: "com.example.monthly", type: "Auto-Renewable Subscription") {
                $0.transactionId = receipt.id
                $0.purchaseDate = (now - 31 * 86_400_000) / 1000 * 1000
                $0.expiresDate = extended
            }
            appStore.double.holdTransaction(receipt.id, signedTransactionInfo: answer.jws)
            let redeemed = try await Self.redeem(client, receipt.receipt, receipt.id)
            #expect(redeemed.status == 200, "\(redeemed.text)")
            #expect(try await server.application.ledger.transaction(id: receipt.id)?.transaction.expiresDate == extended)
            #expect(Self.lookups(appStore, receipt.id) == 1)

            // An answer for another product than the receipt's is refused.
            let other = try AppReceiptFixture.sign(server.application, product: "com.example.level1")
            let wrong = try PurchaseSteps.sign(server, product: "com.example.premium", type: "Non-Consumable") {
                $0.transactionId = other.id
            }
            appStore.double.holdTransaction(other.id, signedTransactionInfo: wrong.jws)
            let inconsistent = try await Self.redeem(client, other.receipt, other.id)
            #expect(inconsistent.status == 400, "\(inconsistent.text)")
            #expect(inconsistent.text.contains("payload-inconsistent"), "\(inconsistent.text)")
            #expect(try await server.application.ledger.transaction(id: other.id) == nil)
        }
    }

    /// An Xcode receipt's environment has no App Store server: the receipt alone decides, and Apple is not asked.
    @Test func anEnvironmentWithoutTheAPIIsNotAsked() async throws {
        try await Self.withServer(.sqlite) { server, appStore in
            let client = try RawHTTPClient(port: server.port)
            let receipt = try AppReceiptFixture.sign(server.application, product: "com.example.level1") { $0.receiptType = "Xcode" }
            let redeemed = try await Self.redeem(client, receipt.receipt, receipt.id)
            #expect(redeemed.status == 200, "\(redeemed.text)")
            #expect(Self.lookups(appStore, receipt.id) == 0)
        }
    }
}
