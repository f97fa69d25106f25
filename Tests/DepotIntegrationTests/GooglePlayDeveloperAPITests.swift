@testable import DepotServerTestSupport
import DepotCore
import DepotGooglePlayDouble
import DepotLedger
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Depot calling the Google Play Developer API itself, against the Google Play double, on both ledger engines:
/// a confirmed delivery is acknowledged (a consumable consumed) through the outbox exactly once, a failing
/// Google is tried again, and a purchase Google voided stops its grants within a poll.
@Suite("Google Play Developer API on live servers")
struct GooglePlayDeveloperAPITests {
    @Test(arguments: LedgerEngine.tested)
    func aConfirmedDeliveryIsAcknowledgedOnceAndAConsumableConsumed(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            try await GooglePlayFlowTests.withServer(engine, settings: play.settings(signer)) { server in
                let client = try RawHTTPClient(port: server.port)
                let level = try play.purchase(signer, productId: "level1")
                let (_, finish, _) = try await GooglePlaySteps.buy(client, level, contentId: "com.example.level1")
                #expect(finish["storeFinish"] as? String == "server")
                #expect((finish["storeFinishDetail"] as? String)?.contains("Depot acknowledges") == true)
                try await eventually("the level acknowledged at Google Play") {
                    play.double.purchase(token: level.token)?.acknowledgementState == 1
                }
                let coins = try play.purchase(signer, productId: "coins")
                let (coinsId, _, _) = try await GooglePlaySteps.buy(client, coins, contentId: "com.example.coins")
                try await eventually("the coins consumed at Google Play") {
                    try await server.application.ledger.appleJobIsDone(coinsId)
                }
                #expect(play.double.purchase(token: coins.token)?.consumptionState == 1)
                // Confirmed again (the app retrying), nothing more reaches Google.
                let again = try await PurchaseSteps.post(
                    client, "/v1/transactions", try GooglePlayFlowTests.redeemBody(level.data, level.signature))
                #expect(again.status == 200)
                let jobs = try await server.application.ledger.storeJobs(transactionId: coinsId)
                #expect(jobs.count == 1 && jobs.first?.state == .done)
                // Operators read the store in the audit trail.
                let events = try await server.application.ledger.auditTrail(transactionId: coinsId).map(\.event)
                #expect(events.contains("google-play-finish-enqueued") && events.contains("google-play-finish-sent"), "\(events)")
                #expect(!events.contains { $0.hasPrefix("apple-") })
                #expect(play.completed("acknowledge") == [level.token: 1])
                #expect(play.completed("consume") == [coins.token: 1])
                // One token asked for, reused.
                #expect(play.double.requests.filter { $0.path.hasPrefix("/token") }.count == 1)
            }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aFailingGoogleIsTriedAgainUntilItAcknowledges(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            // The first failure meets the redeem's read of the purchase type (the order id's offline judgement then
            // stands); the acknowledgement meets the next two.
            play.double.failNext(.init(count: 2, status: 503, retryAfter: nil))
            play.double.failNext(.init(count: 1, status: 429, retryAfter: 1))
            try await GooglePlayFlowTests.withServer(engine, settings: play.settings(signer)) { server in
                let client = try RawHTTPClient(port: server.port)
                let level = try play.purchase(signer, productId: "level1")
                let (id, _, _) = try await GooglePlaySteps.buy(client, level, contentId: "com.example.level1")
                try await eventually("the level acknowledged after two failures") {
                    try await server.application.ledger.appleJobIsDone(id)
                }
                #expect(play.double.purchase(token: level.token)?.acknowledgementState == 1)
                let calls = play.double.requests.filter { $0.path.contains(":acknowledge") }
                #expect(calls.map(\.status) == [503, 429, 200])
                let job = try #require(try await server.application.ledger.storeJobs(transactionId: id).first)
                #expect(job.state == .done && job.attempts == 3)

                // Even an answer that looks final (Google does not know the purchase yet) is tried again, not given
                // up: a purchase nobody acknowledges is refunded after three days.
                let unknown = try play.purchase(signer, productId: "level1")
                var held = try #require(play.double.purchase(token: unknown.token))
                held.productId = "another"
                play.double.holdPurchase(held)
                let (unknownId, _, _) = try await GooglePlaySteps.buy(client, unknown, contentId: "com.example.level1")
                try await eventually("the refusal recorded") {
                    try await server.application.ledger.storeJobs(transactionId: unknownId).first?.lastError?.contains("400") == true
                }
                #expect(try await server.application.ledger.storeJobs(transactionId: unknownId).first?.state == .pending)
                held.productId = "level1"
                play.double.holdPurchase(held)
                try await eventually("acknowledged once Google knows it") {
                    try await server.application.ledger.appleJobIsDone(unknownId)
                }
            }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aPurchaseVoidedAtGooglePlayStopsItsGrantsWithinAPoll(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            try await GooglePlayFlowTests.withServer(engine, settings: play.settings(signer, voidedIntervalSeconds: 1)) { server in
                let client = try RawHTTPClient(port: server.port)
                let level = try play.purchase(signer, productId: "level1")
                let (id, _, url) = try await GooglePlaySteps.buy(client, level, contentId: "com.example.level1")
                let kept = try play.purchase(signer, productId: "level1")
                let (_, _, keptURL) = try await GooglePlaySteps.buy(client, kept, contentId: "com.example.level1")
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                play.double.holdVoided(
                    GooglePlayDoubleVoidedPurchase(
                        purchaseToken: level.token, orderId: level.orderId, purchaseTimeMillis: now - 60_000, voidedTimeMillis: now))
                try await eventually("the voided purchase's grant refused") {
                    try await client.request(RawHTTPClient.get(url)).status == 403
                }
                let stored = try await server.application.ledger.transaction(id: id)
                #expect(stored?.transaction.revocationDate == now)
                // The other purchase of the same product still downloads.
                #expect(try await client.request(RawHTTPClient.get(keptURL)).status == 200)
                // Redeemed again, the voided purchase entitles nothing.
                let again = try await PurchaseSteps.post(
                    client, "/v1/transactions", try GooglePlayFlowTests.redeemBody(level.data, level.signature))
                #expect(again.status == 410, "\(again.text)")
                #expect(again.text.contains("\"revoked\""))

                // A void because nobody acknowledged the purchase in time (reason 8) is counted apart: the remorse
                // refund above was not.
                let metricsRequest = RawHTTPClient.get("/metrics", ["Authorization: Bearer \(LiveServer.adminToken)"])
                #expect(!(try await client.request(metricsRequest).text.contains("depot_google_play_unacknowledged_voids_total")))
                play.double.holdVoided(
                    GooglePlayDoubleVoidedPurchase(
                        purchaseToken: kept.token, orderId: kept.orderId, purchaseTimeMillis: now - 60_000, voidedTimeMillis: now,
                        voidedReason: 8))
                try await eventually("the unacknowledged purchase's void counted") {
                    try await client.request(metricsRequest).text.contains("depot_google_play_unacknowledged_voids_total 1")
                }
            }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aSubscriptionEntitlesThePeriodGoogleHolds(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            try await GooglePlayFlowTests.withServer(engine, settings: play.settings(signer)) { server in
                let client = try RawHTTPClient(port: server.port)
                // Bought on 25 August 2026; the September issue appeared on 1 September.
                let bought: Int64 = 1_787_616_000_000
                let day: Int64 = 86_400_000
                // Google holds it running until 25 September: the issue is entitled, though the signed purchase
                // says nothing of a period and the product has no offline one.
                let running = try play.purchase(signer, productId: "monthly_sub", purchaseTime: bought, expiry: bought + 31 * day)
                let redeemed = try PurchaseSteps.object(
                    try await PurchaseSteps.post(
                        client, "/v1/transactions", try GooglePlayFlowTests.redeemBody(running.data, running.signature)))
                let downloads = try #require(redeemed["downloads"] as? [[String: Any]])
                #expect(downloads.compactMap { $0["contentId"] as? String } == ["com.example.monthly.2026-09"])
                // Held until 30 August (cancelled before renewing): nothing.
                let ended = try play.purchase(signer, productId: "monthly_sub", purchaseTime: bought, expiry: bought + 5 * day)
                let nothing = try await PurchaseSteps.post(
                    client, "/v1/transactions", try GooglePlayFlowTests.redeemBody(ended.data, ended.signature))
                #expect(nothing.status == 200, "\(nothing.text)")
                #expect((try PurchaseSteps.object(nothing)["downloads"] as? [[String: Any]])?.isEmpty == true)

                // Confirmed, the subscription is acknowledged as a subscription.
                let (id, _, _) = try await GooglePlaySteps.buy(client, running, contentId: "com.example.monthly.2026-09")
                try await eventually("the subscription acknowledged") { try await server.application.ledger.appleJobIsDone(id) }
                #expect(play.double.purchase(token: running.token)?.acknowledgementState == 1)
                // One the app acknowledged itself: Google answers Depot's acknowledge 400, which counts as done.
                let acknowledged = try play.purchase(signer, productId: "monthly_sub", purchaseTime: bought, expiry: bought + 31 * day)
                var held = try #require(play.double.purchase(token: acknowledged.token))
                held.acknowledgementState = 1
                play.double.holdPurchase(held)
                let (acknowledgedId, _, _) = try await GooglePlaySteps.buy(
                    client, acknowledged, contentId: "com.example.monthly.2026-09")
                try await eventually("the app's acknowledgement taken as done") {
                    try await server.application.ledger.appleJobIsDone(acknowledgedId)
                }
                let refused = play.double.requests.filter { $0.path.contains(acknowledged.token) && $0.path.hasSuffix(":acknowledge") }
                #expect(refused.map(\.status) == [400])
                #expect(
                    play.double.requests.contains {
                        $0.path.contains("/purchases/subscriptions/monthly_sub/tokens/") && $0.path.hasSuffix(":acknowledge")
                    })
            }
        }
    }
}
