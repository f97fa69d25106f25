@testable import DepotServerTestSupport
import DepotSettings
import DepotServer
import DepotTrust
import Foundation
import Testing

/// Refunding one period of a subscription takes back that period's issues from every renewal they were
/// granted through, at once; what a renewal still entitles keeps downloading.
@Suite struct SiblingRevocationTests {
    static let day: Int64 = 86_400_000
    /// 2026-08-15T00:00:00Z.
    static let start: Int64 = 1_786_752_000_000

    @Test func aRefundedPeriodStopsItsIssuesGrantedThroughARenewal() async throws {
        var packs = LiveServer.standardPacks
        packs.append(
            LiveServer.PackSpec(
                directory: "magazine/2026-09-20", productId: "com.example.monthly",
                contentId: "com.example.monthly.2026-09-20", publishedAt: "2026-09-20T06:00:00Z",
                files: ["article.md": Array("the renewal's own issue".utf8)]))
        try await LiveServer.with(packs: packs) { server in
            let client = try RawHTTPClient(port: server.port)
            let subscription = "sub-\(UUID().uuidString.prefix(8))"
            let (first, firstId) = try PurchaseSteps.sign(server, product: "com.example.monthly", type: "Auto-Renewable Subscription") {
                $0.originalTransactionId = subscription
                $0.purchaseDate = Self.start
                $0.expiresDate = Self.start + 31 * Self.day
            }
            let (renewal, _) = try PurchaseSteps.sign(server, product: "com.example.monthly", type: "Auto-Renewable Subscription") {
                $0.originalTransactionId = subscription
                $0.purchaseDate = Self.start + 31 * Self.day
                $0.expiresDate = Self.start + 61 * Self.day
            }
            #expect(try await client.request(PurchaseRequests.redeem(first)).status == 200)
            // The renewal is granted both issues: 2026-09 through the first period, 2026-09-20 through its own.
            let answer = try JSONAnswer(try await client.request(PurchaseRequests.redeem(renewal)))
            var urls: [String: String] = [:]
            for index in 0..<2 {
                let contentId = try #require(answer["downloads.\(index).contentId"]?.string)
                urls[contentId] = try #require(answer["downloads.\(index).url"]?.string)
            }
            let september = try #require(urls["com.example.monthly.2026-09"])
            let own = try #require(urls["com.example.monthly.2026-09-20"])
            #expect(try await client.request(RawHTTPClient.get(september)).status == 200)

            // Apple refunds the first period.
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(
                directory: TrustSetup.developmentDirectory(server.application.configuration))
            var refund = DevelopmentNotificationBuilder(notificationType: "REFUND", bundleId: server.application.configuration.appBundleId)
            refund.signedTransactionInfo = try PurchaseSteps.sign(
                server, product: "com.example.monthly", type: "Auto-Renewable Subscription"
            ) {
                $0.transactionId = firstId
                $0.originalTransactionId = subscription
                $0.purchaseDate = Self.start
                $0.expiresDate = Self.start + 31 * Self.day
                $0.revocationDate = Self.start + 40 * Self.day
            }.jws
            let notified = try await PurchaseSteps.post(
                client, "/v1/notifications/appstore", "{\"signedPayload\": \"\(try authority.sign(payload: refund.payload()))\"}")
            #expect(try JSONAnswer(notified)["effect"]?.string == "revoked")

            // The renewal's grant for the refunded period's issue stops at once; its own issue keeps working.
            let refused = try await client.request(RawHTTPClient.get(september))
            #expect(refused.status == 403)
            #expect(try JSONAnswer(refused)["error.code"]?.string == "grant-revoked")
            #expect(try await client.request(RawHTTPClient.get(own)).status == 200)
            let again = try JSONAnswer(try await client.request(PurchaseRequests.redeem(renewal)))
            #expect(again["downloads.0.contentId"]?.string == "com.example.monthly.2026-09-20")
            #expect(again["downloads.1"] == nil)
        }
    }
}
