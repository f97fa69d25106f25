@testable import DepotServerTestSupport
import DepotSettings
import DepotServer
import DepotTrust
import Foundation
import Testing

/// Sharing detection counts the caller's own identity: the account the app sends beside the signed
/// transaction, and the client address a trusted proxy forwarded for.
@Suite struct CallerIdentityTests {
    static let admin = AdminTests.admin

    @Test func accountsSentByTheAppAreCountedThoughTheSignedTokenIsFixed() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            // Genuine App Store data: one transaction, one signed token, whoever presents it.
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
                $0.appAccountToken = "6f1c0c44-93bd-4d3b-9c53-8b7a2f1a0001"
            }
            var statuses: [Int] = []
            for account in 1...4 {
                let token = String(format: "1b4e28ba-2fa1-11d2-883f-0016d3cca4%02d", account)
                let body = "{\"signedTransaction\": \"\(jws)\", \"appAccountToken\": \"\(token)\"}"
                statuses.append(try await PurchaseSteps.post(client, "/v1/transactions", body).status)
            }
            // Two accounts are allowed (the test configuration); the third flags the transaction.
            #expect(statuses == [200, 200, 429, 429])
            let flagged = try PurchaseSteps.object(try await client.request(RawHTTPClient.get("/v1/admin/irregular", [Self.admin])))
            let entries = try #require(flagged["transactions"] as? [[String: Any]])
            #expect(entries.compactMap { $0["transactionId"] as? String } == [id])
            #expect(entries.first?["appAccountTokens"] as? Int == 4)
        }
    }

    @Test func anAccountTokenThatIsNotAUUIDIsRefusedAndChangesNothing() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            for bad in ["alice", "", "1b4e28ba2fa111d2883f0016d3cca427", "1b4e28ba-2fa1-11d2-883f-0016d3cca427-00"] {
                let answer = try await PurchaseSteps.post(
                    client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\", \"appAccountToken\": \"\(bad)\"}")
                #expect(answer.status == 400)
                #expect(try JSONAnswer(answer)["error.code"]?.string == "invalid-account-token")
            }
            let restore = try await PurchaseSteps.post(
                client, "/v1/restore", "{\"signedTransactions\": [\"\(jws)\"], \"appAccountToken\": \"bob\"}")
            #expect(restore.status == 400)
            #expect(try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)", [Self.admin])).status == 404)
        }
    }

    @Test func addressesForwardedByATrustedProxyAreCounted() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            // The test server trusts 127.0.0.1: eleven customers behind it, each forwarded for. The entry left of
            // the client's is written by the client and ignored; the proxy chain's own hops are skipped.
            for customer in 1...11 {
                let request = PurchaseRequests.post(
                    "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}",
                    headers: ["X-Forwarded-For: 203.0.113.250, 198.51.100.\(customer), 127.0.0.1"])
                _ = try await client.request(request)
            }
            let flagged = try PurchaseSteps.object(try await client.request(RawHTTPClient.get("/v1/admin/irregular", [Self.admin])))
            let entries = try #require(flagged["transactions"] as? [[String: Any]])
            #expect(entries.compactMap { $0["transactionId"] as? String } == [id])
            #expect(entries.first?["clientAddresses"] as? Int == 11)
        }
    }

    @Test func onlyTrustedPeersAreBelieved() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8", "192.0.2.7", "fd00::/8"])
        let table: [(peer: String, forwarded: [String], client: String)] = [
            // An untrusted peer is the client, whatever it claims.
            ("198.51.100.1", ["203.0.113.9"], "198.51.100.1"),
            // A trusted peer: the rightmost untrusted hop.
            ("10.1.2.3", ["203.0.113.9"], "203.0.113.9"),
            ("10.1.2.3", ["6.6.6.6, 203.0.113.9, 10.9.9.9"], "203.0.113.9"),
            ("10.1.2.3", ["6.6.6.6", "203.0.113.9, 192.0.2.7"], "203.0.113.9"),
            ("fd12::1", ["2001:db8::5"], "2001:db8::5"),
            // No header, or nothing readable: the proxy itself, or the last hop it vouched for.
            ("10.1.2.3", [], "10.1.2.3"),
            ("10.1.2.3", ["not-an-address"], "10.1.2.3"),
            ("10.1.2.3", ["203.0.113.9, garbage, 10.0.0.5"], "10.0.0.5"),
            // Every hop a trusted proxy: the leftmost.
            ("10.1.2.3", ["10.0.0.1, 10.0.0.2"], "10.0.0.1"),
            // Prefix boundaries.
            ("11.0.0.1", ["203.0.113.9"], "11.0.0.1"),
            ("192.0.2.8", ["203.0.113.9"], "192.0.2.8"),
        ]
        for row in table {
            #expect(proxies.clientAddress(peer: row.peer, forwardedFor: row.forwarded) == row.client, "\(row)")
        }
        #expect(TrustedProxies.none.clientAddress(peer: "10.1.2.3", forwardedFor: ["203.0.113.9"]) == "10.1.2.3")
        for bad in ["10.0.0.0/33", "300.1.1.1", "example.com", "10.0.0.0/8/8", "::1/129", ""] {
            #expect(throws: ConfigurationError.self) { try TrustedProxies([bad]) }
        }
    }
}
