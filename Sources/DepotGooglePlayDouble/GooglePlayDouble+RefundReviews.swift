import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// Pending refund reviews (Google's collaborative chargeback review): `POST /_double/refund-reviews` `{"orderId"}`
/// opens one and answers with its token and the Pub/Sub push body of its `pendingRefundReviewNotification`;
/// `POST /androidpublisher/v3/applications/{packageName}/orders/{orderId}:reviewrefund` takes the developer's answer
/// as Google documents it (`pendingRefundToken` of an open review of that order, `sampleContentProvided`,
/// `refundPreference` `DECLINE`, `APPROVE` or `NEUTRAL`, `consumptionPercentageMilliunits` 0-100,000, at most
/// 1,000 `consumptionUsageEvents`), keeps the first and answers later ones 200 all the same, as Google does.
extension GooglePlayDouble {
    /// One review: its order, and the first answer received (the request body), if any.
    package struct RefundReview: Sendable, Equatable, Codable {
        /// The order (Depot's transaction id of a Play purchase).
        package var orderId: String
        /// The review's token, as the notification carries it.
        package var pendingRefundToken: String
        /// The first answer's body, once one came.
        package var answer: String?
    }

    /// Opens a review of `orderId`; returns it.
    package func openRefundReview(orderId: String) -> RefundReview {
        let review = RefundReview(orderId: orderId, pendingRefundToken: "prt-" + UUID().uuidString.lowercased(), answer: nil)
        state.withLockedValue { $0.refundReviews[review.pendingRefundToken] = review }
        return review
    }

    /// The review with `token`, with its answer once one came.
    package func refundReview(token: String) -> RefundReview? {
        state.withLockedValue { $0.refundReviews[token] }
    }

    /// The Pub/Sub push body of the notification that opens `review`, as Google would post it for this app.
    package func refundReviewPush(_ review: RefundReview, eventTimeMillis: Int64) -> String {
        let data =
            #"{"version":"1.0","packageName":\#(GooglePlayDoubleSetup.quoted(packageName)),"eventTimeMillis":"\#(eventTimeMillis)","#
            + #""pendingRefundReviewNotification":{"version":"1.0","pendingRefundToken":\#(GooglePlayDoubleSetup.quoted(review.pendingRefundToken)),"#
            + #""orderId":\#(GooglePlayDoubleSetup.quoted(review.orderId)),"refundReason":1}}"#
        return #"{"message": {"data": "\#(Data(data.utf8).base64EncodedString())", "messageId": "\#(UUID().uuidString)"}, "#
            + #""subscription": "projects/double/subscriptions/rtdn"}"#
    }

    /// `POST /_double/refund-reviews`.
    func openRefundReview(body: ByteBuffer) -> Response {
        struct Input: Decodable { var orderId: String }
        guard let input = try? JSONDecoder().decode(Input.self, from: Data(body.readableBytesView)), !input.orderId.isEmpty else {
            return Self.json(
                .badRequest, #"{"error": {"code": "bad-refund-review", "message": "send {\"orderId\": the order to review}"}}"#)
        }
        let review = openRefundReview(orderId: input.orderId)
        let push = refundReviewPush(review, eventTimeMillis: clock())
        return Self.json(
            .ok,
            #"{"pendingRefundToken": \#(GooglePlayDoubleSetup.quoted(review.pendingRefundToken)), "push": \#(GooglePlayDoubleSetup.quoted(push))}"#
        )
    }

    /// `orders/{orderId}:reviewrefund`.
    func reviewRefund(orderId: String, body: ByteBuffer) -> Response {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else {
            return Self.googleError(.badRequest, "Invalid JSON payload received.", status: "INVALID_ARGUMENT", reason: "parseError")
        }
        guard let token = object["pendingRefundToken"] as? String, object["sampleContentProvided"] is Bool,
            let preference = object["refundPreference"] as? String, ["DECLINE", "APPROVE", "NEUTRAL"].contains(preference)
        else { return Self.invalidValue }
        if let percentage = object["consumptionPercentageMilliunits"] {
            guard let value = percentage as? Int, (0...100_000).contains(value) else { return Self.invalidValue }
        }
        if let events = object["consumptionUsageEvents"] {
            guard let list = events as? [[String: Any]], list.count <= 1_000,
                list.allSatisfy({ (($0["consumptionItemDescription"] as? String)?.count ?? 0) <= 5_000 })
            else { return Self.invalidValue }
        }
        let text = String(buffer: body)
        return state.withLockedValue { state in
            guard var review = state.refundReviews[token], review.orderId == orderId else { return Self.invalidValue }
            if review.answer == nil {
                review.answer = text
                state.refundReviews[token] = review
            }
            return Self.json(.ok, "{}")
        }
    }
}
