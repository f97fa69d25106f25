@testable import DepotServerTestSupport
import DepotSettings
import DepotCore
import DepotServer
import DepotTrust
import Foundation
import Testing

/// Notifications take effect in the order Apple signed them, whatever order they arrive in; restores count
/// as redemptions; a revocation learnt at redeem stops grants at once.
@Suite("Notification order, restores and revocations")
struct NotificationOrderTests {
    @Test func aRetriedRefundDoesNotUndoItsReversalNorTheReverse() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let url = try #require(try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))["downloads.0.url"]?.string)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let (t1, t2, t3) = (now - 30_000, now - 20_000, now - 10_000)
            let (refund, reversal, finalRefund) = (UUID().uuidString, UUID().uuidString, UUID().uuidString)

            #expect(try await PurchaseSteps.notify(client, server, type: "REFUND", id: id, signedDate: t1, uuid: refund) == "revoked")
            #expect(try await client.request(RawHTTPClient.get(url)).status == 403)
            #expect(
                try await PurchaseSteps.notify(client, server, type: "REFUND_REVERSED", id: id, signedDate: t2, uuid: reversal)
                    == "reinstated")
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            // Apple retries the first REFUND (its answer was lost): same UUID, same signedDate. Nothing changes.
            #expect(try await PurchaseSteps.notify(client, server, type: "REFUND", id: id, signedDate: t1, uuid: refund) == "stale-ignored")
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            #expect(try await client.request(PurchaseRequests.redeem(jws)).status == 200)

            // A final refund, then the reversal retried late: the purchase stays refunded.
            #expect(try await PurchaseSteps.notify(client, server, type: "REFUND", id: id, signedDate: t3, uuid: finalRefund) == "revoked")
            #expect(
                try await PurchaseSteps.notify(client, server, type: "REFUND_REVERSED", id: id, signedDate: t2, uuid: reversal)
                    == "stale-ignored")
            #expect(try await client.request(RawHTTPClient.get(url)).status == 403)
            #expect(try await client.request(PurchaseRequests.redeem(jws)).status == 410)
        }
    }

    /// A notification whose transaction is not the purchase recorded under its id is acknowledged (Apple does not
    /// send it again) and changes nothing.
    @Test func aNotificationCarryingAnotherPurchaseUnderARecordedIdIsAcknowledgedAndChangesNothing() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let url = try #require(try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))["downloads.0.url"]?.string)
            let signedDate = Int64(Date().timeIntervalSince1970 * 1000) - 1000
            let uuid = UUID().uuidString
            for _ in 0..<2 {
                #expect(
                    try await PurchaseSteps.notify(
                        client, server, type: "REFUND", id: id, signedDate: signedDate, uuid: uuid, product: "com.example.premium")
                        == "transaction-conflict")
            }
            // The purchase recorded is untouched: its grant still opens the bundle, and it redeems.
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            #expect(try await client.request(PurchaseRequests.redeem(jws)).status == 200)
        }
    }

    @Test func aRevocationSeenAtRedeemStopsGrantsAtOnce() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let url = try #require(try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))["downloads.0.url"]?.string)
            let (revoked, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
                $0.transactionId = id
                $0.revocationDate = Int64(Date().timeIntervalSince1970 * 1000) - 1000
            }
            #expect(try await client.request(PurchaseRequests.redeem(revoked)).status == 410)
            // No wait for the periodic refresh: the grant already out is refused now.
            #expect(try await client.request(RawHTTPClient.get(url)).status == 403)
        }
    }

    @Test func restoreCountsAsRedemptionAndVerifiesEachTransactionOnce() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let id = "7100000001"
            var statuses: [Int] = []
            for account in 0..<4 {
                let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
                    $0.transactionId = id
                    $0.appAccountToken = UUID(uuidString: "00000000-0000-0000-0000-00000000010\(account)")!.uuidString.lowercased()
                }
                // 300 copies of one JWS: verified and recorded once.
                let copies = Array(repeating: "\"\(jws)\"", count: 300).joined(separator: ", ")
                let response = try await PurchaseSteps.post(client, "/v1/restore", "{\"signedTransactions\": [\(copies)]}")
                statuses.append(response.status)
                if response.status == 200 {
                    #expect(try JSONAnswer(response)["transactions"]?.array.count == 1)
                }
            }
            // The same rule as redeem: two accounts allowed, the third and fourth slowed down.
            #expect(statuses == [200, 200, 429, 429])
            let report = try JSONAnswer(try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)", [AdminTests.admin])))
            let grants = report["audit"]?.array.filter { $0["event"]?.string == "grants-issued" }.count
            #expect(grants == 2)
        }
    }
}
