@testable import DepotServer
@testable import DepotServerTestSupport
import DepotCore
import DepotSettings
import DepotTrust
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `TransactionRoutes` through the router without a socket: finish, consent, restore and App Store notifications,
/// each documented answer with its status, fields and body (the redeem's are in `RoutedRequestTests`).
@Suite("Transaction routes without a socket")
struct TransactionRouteTests {
    /// Redeems a fresh non-consumable of level 1: its id, finish token and bundle digest.
    static func redeem(
        _ application: DepotApplication, _ client: any TestClientProtocol
    ) async throws -> (
        id: String, token: String, digest: String
    ) {
        let (jws, id) = try PurchaseSteps.sign(application, product: "com.example.level1", type: "Non-Consumable")
        let redeemed = try await RouterRequests.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}")
        try RouterRequests.expectJSON(redeemed, .ok)
        let body = try RoutedRequestTests.object(redeemed)
        let token = try #require((body["transaction"] as? [String: Any])?["finishToken"] as? String)
        let digest = try #require((body["downloads"] as? [[String: Any]])?.first?["digest"] as? String)
        return (id, token, digest)
    }

    /// A finish body for level 1's bundle.
    static func finishBody(token: String?, digest: String) -> String {
        let proof = token.map { "\"finishToken\": \"\($0)\", " } ?? ""
        return "{\(proof)\"delivered\": [{\"contentId\": \"com.example.level1\", \"digest\": \"\(digest)\"}]}"
    }

    @Test func aFinishIsAnsweredForEachDocumentedCase() async throws {
        try await RoutedRequestTests.withRouter { application, client in
            let (id, token, digest) = try await Self.redeem(application, client)
            let path = "/v1/transactions/\(id)/finish"

            let bare = try await RouterRequests.post(client, path, Self.finishBody(token: nil, digest: digest))
            try RouterRequests.expectJSON(bare, .unauthorized, code: "finish-token-required")

            // A wrong token is answered exactly as an unknown transaction (under one request id, so byte for byte).
            let named: HTTPFields = [HTTPField.Name("X-Request-Id")!: "finish-route"]
            let wrong = try await RouterRequests.post(
                client, path, Self.finishBody(token: "f1.test." + String(repeating: "A", count: 43), digest: digest),
                headers: named)
            let unknown = try await RouterRequests.post(
                client, "/v1/transactions/2999999999999999/finish",
                Self.finishBody(token: "f1.test." + String(repeating: "A", count: 43), digest: digest), headers: named)
            try RouterRequests.expectJSON(wrong, .notFound, code: "unknown-transaction")
            #expect(wrong.body == unknown.body)

            let malformed = try await RouterRequests.post(client, path, Self.finishBody(token: token, digest: digest.uppercased()))
            try RouterRequests.expectJSON(malformed, .badRequest, code: "bad-request")
            #expect(String(buffer: malformed.body).contains("delivered[0].digest"))
            let wrongType = try await RouterRequests.post(client, path, "{\"finishToken\": \"\(token)\", \"delivered\": 7}")
            try RouterRequests.expectJSON(wrongType, .badRequest, code: "bad-request")
            #expect(String(buffer: wrongType.body).contains("wrong type at \\\"delivered\\\""))

            let finished = try await RouterRequests.post(client, path, Self.finishBody(token: token, digest: digest))
            try RouterRequests.expectJSON(finished, .ok)
            let body = try RoutedRequestTests.object(finished)
            let transaction = try #require(body["transaction"] as? [String: Any])
            #expect(transaction["id"] as? String == id)
            #expect(transaction["state"] as? String == "finished")
            #expect(body["finishStoreKitTransaction"] as? Bool == true)
            #expect(body["storeFinish"] is String)
            // Finishing again is answered the same way: the transaction already is finished.
            let again = try await RouterRequests.post(client, path, Self.finishBody(token: token, digest: digest))
            try RouterRequests.expectJSON(again, .ok)
            #expect(((try RoutedRequestTests.object(again))["transaction"] as? [String: Any])?["state"] as? String == "finished")
        }
    }

    @Test func aConsentIsRecordedOnlyWithTheRedeemsToken() async throws {
        try await RoutedRequestTests.withRouter { application, client in
            let (id, token, _) = try await Self.redeem(application, client)
            let path = "/v1/transactions/\(id)/consent"
            let bare = try await RouterRequests.post(client, path, "{\"customerConsented\": true}")
            try RouterRequests.expectJSON(bare, .unauthorized, code: "finish-token-required")
            let wrong = try await RouterRequests.post(
                client, path, "{\"finishToken\": \"f1.test.\(String(repeating: "A", count: 43))\", \"customerConsented\": true}")
            try RouterRequests.expectJSON(wrong, .notFound, code: "unknown-transaction")
            let missing = try await RouterRequests.post(client, path, "{\"finishToken\": \"\(token)\"}")
            try RouterRequests.expectJSON(missing, .badRequest, code: "bad-request")
            #expect(String(buffer: missing.body).contains("customerConsented"))

            for consented in [true, false] {
                let answer = try await RouterRequests.post(
                    client, path, "{\"finishToken\": \"\(token)\", \"customerConsented\": \(consented)}")
                try RouterRequests.expectJSON(answer, .ok)
                let body = try RoutedRequestTests.object(answer)
                #expect(body["customerConsented"] as? Bool == consented)
                #expect((body["transaction"] as? [String: Any])?["id"] as? String == id)
            }
        }
    }

    @Test func aRestoreAnswersWhatTheSignedPurchasesEntitle() async throws {
        try await RoutedRequestTests.withRouter { application, client in
            let (jws, id) = try PurchaseSteps.sign(application, product: "com.example.level1", type: "Non-Consumable")
            let restored = try await RouterRequests.post(client, "/v1/restore", "{\"signedTransactions\": [\"\(jws)\", \"\(jws)\"]}")
            try RouterRequests.expectJSON(restored, .ok)
            let body = try RoutedRequestTests.object(restored)
            let transactions = try #require(body["transactions"] as? [[String: Any]])
            #expect(transactions.map { $0["id"] as? String } == [id], "copies of one purchase are restored once")
            #expect(transactions.first?["finishToken"] is String)
            let downloads = try #require(body["downloads"] as? [[String: Any]])
            #expect(
                downloads.first?["digest"] as? String
                    == application.catalog.versions.first { $0.productId == "com.example.level1" }?.digest.hex)

            // Nothing held is a restore of nothing; naming no source at all is refused.
            let empty = try await RouterRequests.post(client, "/v1/restore", "{\"signedTransactions\": []}")
            try RouterRequests.expectJSON(empty, .ok)
            #expect((try RoutedRequestTests.object(empty)["transactions"] as? [Any])?.isEmpty == true)
            let none = try await RouterRequests.post(client, "/v1/restore", "{}")
            try RouterRequests.expectJSON(none, .badRequest, code: "bad-request")
            let device = try await RouterRequests.post(
                client, "/v1/restore", "{\"signedTransactions\": [], \"deviceId\": \"\(UUID().uuidString)\"}")
            try RouterRequests.expectJSON(device, .badRequest, code: "bad-request")
            #expect(String(buffer: device.body).contains("deviceId"))
            let unsigned = try await RouterRequests.post(client, "/v1/restore", "{\"signedTransactions\": [\"not a jws\"]}")
            try RouterRequests.expectJSON(unsigned, .badRequest, code: "jws-malformed")
        }
    }

    @Test func aBodyLargerThanTheRouteTakesIs413() async throws {
        try await RoutedRequestTests.withRouter { _, client in
            let padding = String(repeating: " ", count: (4 << 20) + 1)
            let large = try await RouterRequests.post(client, "/v1/restore", "{\"signedTransactions\": []}" + padding)
            try RouterRequests.expectJSON(large, .contentTooLarge, code: "too-large")
            let invalid = try await client.execute(
                uri: "/v1/restore", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(bytes: Array("{\"signedTransactions\": [\"".utf8) + [0xFF, 0xFE] + Array("\"]}".utf8)))
            try RouterRequests.expectJSON(invalid, .badRequest, code: "bad-request")
            #expect(String(buffer: invalid.body).contains("UTF-8"))
        }
    }

    @Test func anAppStoreNotificationIsAnsweredWithItsEffectOnce() async throws {
        try await RoutedRequestTests.withRouter { application, client in
            let (id, _, _) = try await Self.redeem(application, client)
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(
                directory: TrustSetup.developmentDirectory(application.configuration))
            var refund = DevelopmentNotificationBuilder(notificationType: "REFUND", bundleId: application.configuration.appBundleId)
            refund.signedTransactionInfo = try PurchaseSteps.sign(application, product: "com.example.level1", type: "Non-Consumable") {
                $0.transactionId = id
                $0.revocationDate = Int64(Date().timeIntervalSince1970 * 1000)
            }.jws
            let payload = "{\"signedPayload\": \"\(try authority.sign(payload: refund.payload()))\"}"
            let notified = try await RouterRequests.post(client, "/v1/notifications/appstore", payload)
            try RouterRequests.expectJSON(notified, .ok)
            let outcome = try RoutedRequestTests.object(notified)
            #expect(outcome["notificationUUID"] as? String == refund.notificationUUID)
            #expect(outcome["duplicate"] as? Bool == false)
            #expect(outcome["effect"] as? String == "revoked")
            // The store retries what it did not see answered: the same notification does nothing again.
            let retried = try await RouterRequests.post(client, "/v1/notifications/appstore", payload)
            try RouterRequests.expectJSON(retried, .ok)
            #expect(try RoutedRequestTests.object(retried)["duplicate"] as? Bool == true)

            let missing = try await RouterRequests.post(client, "/v1/notifications/appstore", "{}")
            try RouterRequests.expectJSON(missing, .badRequest, code: "bad-request")
            let unsigned = try await RouterRequests.post(client, "/v1/notifications/appstore", "{\"signedPayload\": \"x.y\"}")
            try RouterRequests.expectJSON(unsigned, .badRequest, code: "jws-malformed")
        }
    }
}
