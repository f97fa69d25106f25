@testable import DepotServerTestSupport
import DepotServer
import DepotServices
import DepotTrust
import Foundation
import Testing

/// Operator lists and reports come in pages; a restore flood from one address is slowed down.
@Suite struct AdminPagingTests {
    static let admin = AdminTests.admin

    @Test func unfinishedDeliveriesAndAuditTrailsComeInPages() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            var ids: [String] = []
            for _ in 0..<5 {
                let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
                #expect(try await client.request(PurchaseRequests.redeem(jws)).status == 200)
                ids.append(id)
            }
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let query = "olderThan=0&limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try PurchaseSteps.object(
                    try await client.request(RawHTTPClient.get("/v1/admin/deliveries/unfinished?\(query)", [Self.admin])))
                let deliveries = try #require(page["deliveries"] as? [[String: Any]])
                #expect(deliveries.count <= 2)
                seen += deliveries.compactMap { $0["transactionId"] as? String }
                cursor = page["nextCursor"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(seen.sorted() == ids.sorted())
            #expect(pages == 3)

            // A report's audit trail: redeem the same transaction again and again, then page through it.
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            for _ in 0..<4 { #expect(try await client.request(PurchaseRequests.redeem(jws)).status == 200) }
            let whole = try PurchaseSteps.object(
                try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)", [Self.admin])))
            let allEvents = try #require(whole["audit"] as? [[String: Any]]).count
            #expect(whole["nextCursor"] == nil)
            let first = try PurchaseSteps.object(
                try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)?limit=3", [Self.admin])))
            #expect((first["audit"] as? [[String: Any]])?.count == 3)
            let next = try #require(first["nextCursor"] as? String)
            let rest = try PurchaseSteps.object(
                try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)?limit=1000&cursor=\(next)", [Self.admin])))
            #expect((rest["audit"] as? [[String: Any]])?.count == allEvents - 3)

            for bad in ["limit=0", "limit=1001", "limit=x", "cursor=%21%21", "cursor=bm90LWpzb24"] {
                let answer = try await client.request(RawHTTPClient.get("/v1/admin/deliveries/unfinished?\(bad)", [Self.admin]))
                #expect(answer.status == 400, "\(bad)")
            }
        }
    }

    @Test func restoresFromOneAddressAreRateLimited() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let body = "{\"signedTransactions\": [\"\(jws)\"]}"
            func restore(from address: String) async throws -> RawHTTPClient.Response {
                try await client.request(PurchaseRequests.post("/v1/restore", body, headers: ["X-Forwarded-For: \(address)"]))
            }
            // 20 per address per window (a day in the test configuration, so no refill interferes).
            var statuses: [Int] = []
            for _ in 0..<21 { statuses.append(try await restore(from: "198.51.100.7").status) }
            #expect(statuses.prefix(20).allSatisfy { $0 == 200 })
            let refused = try await restore(from: "198.51.100.7")
            #expect(refused.status == 429)
            #expect(Int(refused.value("Retry-After") ?? "") ?? 0 >= 1)
            #expect(try JSONAnswer(refused)["error.code"]?.string == "restore-rate-limited")
            // Another customer behind the same proxy is not affected.
            #expect(try await restore(from: "198.51.100.8").status == 200)
        }
    }

    @Test func theLimiterRefillsOverTime() {
        let limiter = ClientRateLimiter(capacity: 3, refillSeconds: 60)
        #expect(limiter.spend(client: "a", now: 0) == nil)
        #expect(limiter.spend(client: "a", now: 0) == nil)
        #expect(limiter.spend(client: "a", now: 0) == nil)
        #expect(limiter.spend(client: "a", now: 0) == 20)
        #expect(limiter.spend(client: "b", now: 0) == nil)
        #expect(limiter.spend(client: "a", now: 20) == nil)
        #expect(limiter.spend(client: "a", now: 20) == 20)
        // A cost larger than the bucket is charged as a full bucket, never refused forever.
        #expect(limiter.spend(client: "c", cost: 50, now: 0) == nil)
        #expect(limiter.spend(client: "c", now: 1) == 19)
        // Bounded memory: with room for two clients, a third evicts refilled buckets.
        let small = ClientRateLimiter(capacity: 1, refillSeconds: 10, maxClients: 2)
        #expect(small.spend(client: "x", now: 0) == nil)
        #expect(small.spend(client: "y", now: 0) == nil)
        #expect(small.spend(client: "z", now: 100) == nil)
        #expect(small.spend(client: "x", now: 100) == nil)
    }
}
