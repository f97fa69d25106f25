@testable import DepotServerTestSupport
import DepotSettings
import DepotCore
import DepotServer
import DepotTrust
import Foundation
import Testing

/// Operator endpoints: stuck deliveries, delivery evidence, irregular activity.
@Suite("Admin endpoints and delivery evidence on a live server")
struct AdminTests {
    static let admin = "Authorization: Bearer \(LiveServer.adminToken)"

    @Test func adminEndpointsNeedTheOperatorToken() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            #expect(try await client.request(RawHTTPClient.get("/v1/admin/irregular")).status == 401)
            #expect(try await client.request(RawHTTPClient.get("/v1/admin/irregular", ["Authorization: Bearer wrong"])).status == 403)
            #expect(try await client.request(RawHTTPClient.get("/v1/admin/irregular", [Self.admin])).status == 200)
            #expect(try await client.request(RawHTTPClient.get("/v1/admin/transactions/1", [Self.admin])).status == 404)
        }
    }

    @Test func evidenceFollowsServingAndConfirmation() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let redeemed = try PurchaseSteps.object(
                try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}"))
            let download = try #require((redeemed["downloads"] as? [[String: Any]])?.first)
            let url = try #require(download["url"] as? String)
            let digest = try #require(download["digest"] as? String)

            #expect(try await Self.evidence(client, id) == ["not-delivered", "UNDELIVERED_OTHER"])
            let unfinished = try PurchaseSteps.object(
                try await client.request(RawHTTPClient.get("/v1/admin/deliveries/unfinished?olderThan=0", [Self.admin])))
            #expect((unfinished["deliveries"] as? [[String: Any]])?.compactMap { $0["transactionId"] as? String } == [id])

            // Served in two halves: the coverage merges to the whole bundle; unconfirmed, it still counts as delivered.
            let size = try server.version("com.example.level1").size
            _ = try await client.request(RawHTTPClient.get(url, ["Range: bytes=0-\(size / 2)"]))
            _ = try await client.request(RawHTTPClient.get(url, ["Range: bytes=\(size / 2 + 1)-"]))
            // Served bytes reach the ledger in the background: wait for them (the bound is a fallback only).
            var evidence: [String] = []
            let started = ContinuousClock.now
            while ContinuousClock.now - started < .seconds(120) {
                evidence = try await Self.evidence(client, id)
                if evidence.first == "served-unconfirmed" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(evidence == ["served-unconfirmed", "DELIVERED"])

            let finished = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish",
                "{\"finishToken\": \"\(try #require((redeemed["transaction"] as? [String: Any])?["finishToken"] as? String))\", "
                    + "\"delivered\": [{\"contentId\": \"com.example.level1\", \"digest\": \"\(digest)\"}]}")
            #expect(finished.status == 200)
            #expect(try await Self.evidence(client, id) == ["confirmed", "DELIVERED"])
            let report = try PurchaseSteps.object(
                try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)", [Self.admin])))
            let events = (report["audit"] as? [[String: Any]])?.compactMap { $0["event"] as? String } ?? []
            #expect(events.first == "redeemed")
            #expect(events.filter { $0 == "finished" }.count == 1)

            // A CONSUMPTION_REQUEST is answered with the same evidence.
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(
                directory: TrustSetup.developmentDirectory(server.application.configuration))
            var request = DevelopmentNotificationBuilder(
                notificationType: "CONSUMPTION_REQUEST", bundleId: server.application.configuration.appBundleId)
            request.signedTransactionInfo = jws
            let answer = try PurchaseSteps.object(
                try await PurchaseSteps.post(
                    client, "/v1/notifications/appstore", "{\"signedPayload\": \"\(try authority.sign(payload: request.payload()))\"}"))
            #expect(answer["deliveryStatus"] as? String == "DELIVERED")
        }
    }

    @Test func aTransactionRedeemedByManyAccountsIsFlaggedAndSlowedDown() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let id = "7000000001"
            var statuses: [Int] = []
            for account in 0..<4 {
                let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
                    $0.transactionId = id
                    $0.appAccountToken = UUID(uuidString: "00000000-0000-0000-0000-00000000000\(account)")!.uuidString.lowercased()
                }
                let response = try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}")
                statuses.append(response.status)
                if response.status == 429 { #expect(response.value("Retry-After") != nil) }
            }
            // Two accounts are allowed; with the third the transaction is flagged, and as the previous attempt was
            // within the slow-down period, the third and fourth are told to wait.
            #expect(statuses == [200, 200, 429, 429])
            let flagged = try PurchaseSteps.object(try await client.request(RawHTTPClient.get("/v1/admin/irregular", [Self.admin])))
            let entries = try #require(flagged["transactions"] as? [[String: Any]])
            #expect(entries.compactMap { $0["transactionId"] as? String } == [id])
            #expect(entries.first?["appAccountTokens"] as? Int == 4)
        }
    }

    static func evidence(_ client: RawHTTPClient, _ id: String) async throws -> [String] {
        let report = try PurchaseSteps.object(try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)", [admin])))
        return [report["evidence"] as? String ?? "", report["deliveryStatus"] as? String ?? ""]
    }
}
