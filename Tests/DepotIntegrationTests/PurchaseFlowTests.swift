@testable import DepotServerTestSupport
import DepotSettings
import DepotCore
import DepotServer
import DepotTrust
import Foundation
import Testing

/// The purchase-delivery flow end to end on a live server: sign, redeem, download, finish, refund.
@Suite("Purchase flow on a live server")
struct PurchaseFlowTests {
    @Test func redeemDownloadFinishThenRefundStopsTheGrant() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let redeemed = try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}")
            #expect(redeemed.status == 200, "\(redeemed.text)")
            let body = try PurchaseSteps.object(redeemed)
            let transaction = try #require(body["transaction"] as? [String: Any])
            #expect(transaction["id"] as? String == id)
            #expect(transaction["state"] as? String == "pending")
            let token = try #require(transaction["finishToken"] as? String)
            let downloads = try #require(body["downloads"] as? [[String: Any]])
            #expect(downloads.count == 1)
            let digest = try #require(downloads.first?["digest"] as? String)
            let url = try #require(downloads.first?["url"] as? String)
            #expect(digest == (try server.version("com.example.level1").digest.hex))
            #expect(!url.contains(id), "a grant URL shows the transaction id: \(url)")

            let download = try await client.request(RawHTTPClient.get(url))
            #expect(download.status == 200)
            #expect(download.body == (try server.bundleBytes(digest)))

            // Posting the same transaction again answers with the same downloads (fresh grants).
            let again = try PurchaseSteps.object(
                try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}"))
            #expect((again["downloads"] as? [[String: Any]])?.first?["digest"] as? String == digest)

            let wrong = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish",
                "{\"finishToken\": \"\(token)\", \"delivered\": [{\"contentId\": \"com.example.level1\", \"digest\": \"\(String(repeating: "0", count: 64))\"}]}"
            )
            #expect(wrong.status == 409)
            let finished = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish",
                "{\"finishToken\": \"\(token)\", \"delivered\": [{\"contentId\": \"com.example.level1\", \"digest\": \"\(digest)\"}]}")
            #expect(finished.status == 200, "\(finished.text)")
            #expect((try PurchaseSteps.object(finished)["transaction"] as? [String: Any])?["state"] as? String == "finished")

            // A refund by notification stops the grant at once.
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(
                directory: TrustSetup.developmentDirectory(server.application.configuration))
            var refund = DevelopmentNotificationBuilder(notificationType: "REFUND", bundleId: server.application.configuration.appBundleId)
            refund.signedTransactionInfo = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
                $0.transactionId = id
                $0.revocationDate = Int64(Date().timeIntervalSince1970 * 1000)
            }.jws
            let payload = try authority.sign(payload: refund.payload())
            let notified = try await PurchaseSteps.post(client, "/v1/notifications/appstore", "{\"signedPayload\": \"\(payload)\"}")
            #expect(notified.status == 200, "\(notified.text)")
            let refused = try await client.request(RawHTTPClient.get(url))
            #expect(refused.status == 403)
            #expect(refused.text.contains("grant-revoked"))
            let gone = try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}")
            #expect(gone.status == 410)
            // The same notification again is acknowledged without effect.
            let repeated = try await PurchaseSteps.post(client, "/v1/notifications/appstore", "{\"signedPayload\": \"\(payload)\"}")
            #expect(repeated.status == 200)
            #expect(try PurchaseSteps.object(repeated)["duplicate"] as? Bool == true)
        }
    }

    @Test func refusalsHaveTheirStatus() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (unknown, _) = try PurchaseSteps.sign(server, product: "com.example.unknown", type: "Non-Consumable")
            #expect(try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(unknown)\"}").status == 404)
            let (otherApp, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
                $0.bundleId = "com.other.app"
            }
            #expect(try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(otherApp)\"}").status == 403)
            let (revoked, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
                $0.revocationDate = $0.purchaseDate + 1000
            }
            #expect(try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(revoked)\"}").status == 410)
            #expect(try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"a.b.c\"}").status == 400)
            #expect(try await PurchaseSteps.post(client, "/v1/transactions", "{\"nothing\": 1}").status == 400)
            #expect(try await PurchaseSteps.post(client, "/v1/transactions", "not json").status == 400)
            #expect(try await PurchaseSteps.post(client, "/v1/transactions/999/finish", "{\"delivered\": []}").status == 401)
            #expect(
                try await PurchaseSteps.post(client, "/v1/transactions/999/finish", "{\"finishToken\": \"f1.x.y\", \"delivered\": []}")
                    .status == 404
            )
            #expect(try await PurchaseSteps.post(client, "/v1/notifications/appstore", "{\"signedPayload\": \"x\"}").status == 400)
        }
    }

    @Test func subscriptionEntitlesIssuesOfItsPeriodAndRestoreReturnsThem() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            // The 2026-09 issue (published 2026-09-01) lies inside 2026-08-15 .. 2026-09-15.
            let start = Int64(1_786_752_000_000)  // 2026-08-15T00:00:00Z
            let (inside, _) = try PurchaseSteps.sign(server, product: "com.example.monthly", type: "Auto-Renewable Subscription") {
                $0.purchaseDate = start
                $0.expiresDate = start + 31 * 86_400_000
            }
            let answer = try PurchaseSteps.object(
                try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(inside)\"}"))
            #expect((answer["downloads"] as? [[String: Any]])?.compactMap { $0["contentId"] as? String } == ["com.example.monthly.2026-09"])
            let (before, _) = try PurchaseSteps.sign(server, product: "com.example.monthly", type: "Auto-Renewable Subscription") {
                $0.purchaseDate = start - 90 * 86_400_000
                $0.expiresDate = start - 60 * 86_400_000
            }
            let none = try PurchaseSteps.object(
                try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(before)\"}"))
            #expect((none["downloads"] as? [[String: Any]])?.isEmpty == true)
            let (level, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let restored = try PurchaseSteps.object(
                try await PurchaseSteps.post(
                    client, "/v1/restore", "{\"signedTransactions\": [\"\(inside)\", \"\(before)\", \"\(level)\"]}"))
            let contents = (restored["downloads"] as? [[String: Any]])?.compactMap { $0["contentId"] as? String }
            #expect(contents == ["com.example.level1", "com.example.monthly.2026-09"])
        }
    }
}
