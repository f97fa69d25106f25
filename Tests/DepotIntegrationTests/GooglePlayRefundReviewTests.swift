@testable import DepotServerTestSupport
import DepotGooglePlayDouble
import DepotTestSupport
import Foundation
import Testing

/// Google Play's pending refund reviews on live servers, against the Google Play double, on both ledger engines:
/// the notification enqueues one answer (`orders.reviewrefund`) through the outbox, made from the delivery evidence
/// when the customer consented (`DECLINE` with the delivery as usage for delivered content, `APPROVE` with a
/// consumption of 0 for content never delivered) and `NEUTRAL` without usage when not; the same notification
/// again sends nothing more, and a review of an order Depot never recorded, or one lacking its token, changes
/// nothing.
@Suite("Google Play refund reviews answered with delivery evidence")
struct GooglePlayRefundReviewTests {
    @Test(arguments: LedgerEngine.tested)
    func eachReviewIsAnsweredOnceFromTheDeliveryEvidence(engine: LedgerEngine) async throws {
        try await GooglePlayNotificationTests.withNotifiedServer(engine) { play, signer, client in
            func redeem(_ purchase: (data: String, signature: String, token: String, orderId: String)) async throws -> String {
                let answer = try await PurchaseSteps.post(
                    client, "/v1/transactions", try GooglePlayFlowTests.redeemBody(purchase.data, purchase.signature))
                #expect(answer.status == 200, "\(answer.text)")
                return try #require(try JSONAnswer(answer)["transaction.finishToken"]?.string)
            }
            func consent(_ id: String, _ finishToken: String) async throws {
                let answer = try await PurchaseSteps.post(
                    client, "/v1/transactions/\(id)/consent", #"{"finishToken": "\#(finishToken)", "customerConsented": true}"#)
                #expect(answer.status == 200, "\(answer.text)")
            }
            func review(_ orderId: String) async throws -> (token: String, outcome: String) {
                let opened = play.double.openRefundReview(orderId: orderId)
                let push = play.double.refundReviewPush(opened, eventTimeMillis: Int64(Date().timeIntervalSince1970 * 1000))
                let answer = try await GooglePlayNotificationTests.post(client, push)
                #expect(answer.status == 200, "\(answer.text)")
                return (opened.pendingRefundToken, try JSONAnswer(answer)["outcome"]?.string ?? answer.text)
            }
            func answered(_ token: String) async throws -> [String: Any] {
                try await eventually("the review \(token) answered") { play.double.refundReview(token: token)?.answer != nil }
                let text = try #require(play.double.refundReview(token: token)?.answer)
                return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            }

            // A: delivered and confirmed, consented. B: redeemed, never downloaded, consented. C: delivered, no consent.
            let delivered = try play.purchase(signer, productId: "level1")
            let (deliveredId, _, _) = try await GooglePlaySteps.buy(client, delivered, contentId: "com.example.level1")
            try await consent(deliveredId, try await redeem(delivered))
            let undelivered = try play.purchase(signer, productId: "level1")
            try await consent(undelivered.orderId, try await redeem(undelivered))
            let unconsented = try play.purchase(signer, productId: "level1")
            _ = try await GooglePlaySteps.buy(client, unconsented, contentId: "com.example.level1")

            let a = try await review(deliveredId)
            #expect(a.outcome == "refund-review-enqueued")
            let answerA = try await answered(a.token)
            #expect(answerA["refundPreference"] as? String == "DECLINE", "\(answerA)")
            #expect(answerA["pendingRefundToken"] as? String == a.token)
            #expect(answerA["sampleContentProvided"] as? Bool == false)
            #expect(answerA["consumptionPercentageMilliunits"] == nil, "\(answerA)")
            let events = try #require(answerA["consumptionUsageEvents"] as? [[String: Any]])
            #expect(events.count == 1)
            let description = events.first?["consumptionItemDescription"] as? String ?? ""
            #expect(description.contains("com.example.level1") && description.contains("confirmed by the app"), "\(description)")
            #expect((events.first?["consumptionTime"] as? String)?.hasSuffix("Z") == true, "\(events)")

            let b = try await review(undelivered.orderId)
            #expect(b.outcome == "refund-review-enqueued")
            let answerB = try await answered(b.token)
            #expect(answerB["refundPreference"] as? String == "APPROVE", "\(answerB)")
            #expect(answerB["consumptionPercentageMilliunits"] as? Int == 0, "\(answerB)")
            #expect(answerB["consumptionUsageEvents"] == nil)

            let c = try await review(unconsented.orderId)
            let answerC = try await answered(c.token)
            #expect(answerC["refundPreference"] as? String == "NEUTRAL", "\(answerC)")
            #expect(answerC["consumptionUsageEvents"] == nil && answerC["consumptionPercentageMilliunits"] == nil, "\(answerC)")

            // Pub/Sub delivers A's notification again: nothing more is enqueued.
            let again = try await GooglePlayNotificationTests.post(
                client,
                play.double.refundReviewPush(
                    try #require(play.double.refundReview(token: a.token)), eventTimeMillis: Int64(Date().timeIntervalSince1970 * 1000))
            )
            #expect(try JSONAnswer(again)["outcome"]?.string == "unchanged", "\(again.text)")
            // An order Depot never recorded, and a notification without its token.
            let stranger = try await review("GPA.0000-0000-0000-00000")
            #expect(stranger.outcome == "unknown-purchase")
            // An order id no transaction id could be (Depot's identifier rule) is none Depot recorded, not a 5xx.
            for hostile in ["GPA 1/../x", "\u{0}GPA.1", String(repeating: "9", count: 4000)] {
                #expect(try await review(hostile).outcome == "unknown-purchase", "\(hostile.prefix(20))")
            }
            let malformed = try await GooglePlayNotificationTests.post(
                client, GooglePlayNotificationTests.push(#""pendingRefundReviewNotification":{"orderId":"\#(deliveredId)"}"#))
            #expect(malformed.status == 400, "\(malformed.text)")

            // Each order was answered exactly once; the stranger's review was never answered.
            let calls = play.double.requests.filter { $0.path.hasSuffix(":reviewrefund") }
            for order in [deliveredId, undelivered.orderId, unconsented.orderId] {
                #expect(calls.filter { $0.path.contains(order) }.count == 1, "\(calls.map(\.path))")
            }
            #expect(!calls.contains { $0.path.contains("GPA.0000-0000-0000-00000") })
        }
    }
}
