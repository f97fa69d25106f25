@testable import DepotServerTestSupport
import DepotServer
import DepotTrust
import Foundation
import Testing

/// Non-renewing purchases restored together stack like one customer's purchases, even without an
/// appAccountToken; presented one by one they stand alone.
@Suite struct NonRenewingRestoreTests {
    static let day: Int64 = 86_400_000
    /// 2026-08-01T00:00:00Z.
    static let august: Int64 = 1_785_542_400_000

    @Test func purchasesRestoredTogetherStackWithoutAnAccountToken() async throws {
        var packs = LiveServer.standardPacks
        packs.append(
            LiveServer.PackSpec(
                directory: "season/late-september", productId: "com.example.season",
                contentId: "com.example.season.2026-09-20", publishedAt: "2026-09-20T06:00:00Z",
                files: ["episode.txt": Array("the late September episode".utf8)]))
        try await LiveServer.with(packs: packs) { server in
            let client = try RawHTTPClient(port: server.port)
            // Alone, the first covers August and the second 2026-08-05 .. 2026-09-04; stacked, the second
            // runs from the end of the first (2026-08-31) to 2026-09-30 and covers the issue of 2026-09-20.
            let (first, _) = try PurchaseSteps.sign(server, product: "com.example.season", type: "Non-Renewing Subscription") {
                $0.purchaseDate = Self.august
            }
            let (second, _) = try PurchaseSteps.sign(server, product: "com.example.season", type: "Non-Renewing Subscription") {
                $0.purchaseDate = Self.august + 4 * Self.day
            }
            for jws in [first, second] {
                let alone = try PurchaseSteps.object(try await client.request(PurchaseRequests.redeem(jws)))
                #expect((alone["downloads"] as? [[String: Any]])?.isEmpty == true)
            }
            let restored = try PurchaseSteps.object(
                try await PurchaseSteps.post(client, "/v1/restore", "{\"signedTransactions\": [\"\(first)\", \"\(second)\"]}"))
            let contents = (restored["downloads"] as? [[String: Any]])?.compactMap { $0["contentId"] as? String }
            #expect(contents == ["com.example.season.2026-09-20"])

            // Each purchase restored alone still stands alone.
            let single = try PurchaseSteps.object(
                try await PurchaseSteps.post(client, "/v1/restore", "{\"signedTransactions\": [\"\(second)\"]}"))
            #expect((single["downloads"] as? [[String: Any]])?.isEmpty == true)
        }
    }
}
