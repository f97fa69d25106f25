import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// The double's control routes, for a test or a person (not part of Google's API):
/// - `POST /_double/purchases` `{"purchaseToken", "productId", "kind": "product"|"subscription", "orderId",
///   "purchaseState", "purchaseTimeMillis", "expiryTimeMillis", "acknowledgementState", "consumptionState",
///   "purchaseType", "quantity", "refundableQuantity", "purchaseOptionId", "rentOfferDetails" (an object,
///   as Google's empty one: the purchase is rented), "regionCode", "autoRenewing", "cancelReason"}`: holds (or
///   replaces) a purchase;
/// - `POST /_double/voided` `{"purchaseToken", "orderId", "purchaseTimeMillis", "voidedTimeMillis",
///   "voidedSource", "voidedReason", "refundType", "voidedQuantity", "kind"}`: a voided purchase (its held purchase is
///   cancelled, or for a quantity-based partial refund, `voidedQuantity` with `refundType` 2, its refundable
///   quantity lowered);
/// - `POST /_double/refund-reviews` `{"orderId"}`: opens a pending refund review, answered with its
///   `pendingRefundToken` and the `push` body of its notification (see `GooglePlayDouble+RefundReviews.swift`);
/// - `POST /_double/fail` `{"count", "status", "retryAfter"}`: the next `count` API calls fail;
/// - `GET /_double/requests`: every API and token request received; `DELETE /_double/requests` forgets them.
/// Bad input is a 400 with `{"error": {"code", "message"}}`.
extension GooglePlayDouble {
    func control(_ method: HTTPRequest.Method, path: String, body: ByteBuffer) -> Response {
        let data = Data(body.readableBytesView)
        switch (method, path) {
        case (.post, "/_double/purchases"):
            guard let input = try? JSONDecoder().decode(PurchaseInput.self, from: data), let purchase = input.purchase(now: clock())
            else {
                return Self.controlError(
                    "bad-purchase",
                    "send {\"purchaseToken\", \"productId\", \"kind\": \"product\" or \"subscription\", \"orderId\", "
                        + "\"purchaseState\": 0-2, \"purchaseTimeMillis\", \"expiryTimeMillis\", \"acknowledgementState\": 0-1, "
                        + "\"consumptionState\": 0-1, \"quantity\": 1-1000000, \"refundableQuantity\": 0-quantity, "
                        + "\"purchaseOptionId\", \"rentOfferDetails\": {}}")
            }
            holdPurchase(purchase)
            return Self.json(.ok, #"{"held": \#(GooglePlayDoubleSetup.quoted(purchase.purchaseToken))}"#)
        case (.post, "/_double/voided"):
            guard let input = try? JSONDecoder().decode(VoidedInput.self, from: data), let voided = input.voided(now: clock()) else {
                return Self.controlError(
                    "bad-voided-purchase",
                    "send {\"purchaseToken\", \"orderId\", \"purchaseTimeMillis\", \"voidedTimeMillis\", \"voidedSource\": 0-2, "
                        + "\"voidedReason\": 0-8, \"refundType\": 1-2, \"voidedQuantity\": 1-1000000 (refundType 2), "
                        + "\"kind\": \"product\" or \"subscription\"}")
            }
            holdVoided(voided)
            return Self.json(.ok, #"{"voided": \#(GooglePlayDoubleSetup.quoted(voided.purchaseToken))}"#)
        case (.post, "/_double/refund-reviews"):
            return openRefundReview(body: body)
        case (.post, "/_double/push-token"):
            struct Asked: Decodable {
                var audience: String
                var email: String
                var expiresIn: Int64?
            }
            guard let asked = try? JSONDecoder().decode(Asked.self, from: Data(body.readableBytesView)),
                let token = pushToken(audience: asked.audience, email: asked.email, expiresIn: asked.expiresIn ?? 3600)
            else {
                return Self.json(
                    .badRequest, #"{"error": {"code": "bad-push-token", "message": "send {\"audience\": URL, \"email\": account}"}}"#)
            }
            return Self.json(.ok, #"{"token": \#(GooglePlayDoubleSetup.quoted(token))}"#)
        case (.post, "/_double/fail"):
            guard let plan = try? JSONDecoder().decode(FailurePlan.self, from: data),
                plan.count >= 0, plan.status == 429 || (500...599).contains(plan.status), (plan.retryAfter ?? 0) >= 0
            else {
                return Self.controlError("bad-failure-plan", "send {\"count\": N, \"status\": 429 or 500-599, \"retryAfter\": seconds}")
            }
            failNext(plan)
            return Self.json(.ok, #"{"failing": \#(plan.count)}"#)
        case (.get, "/_double/requests"):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(requests)) ?? Data("[]".utf8)
            return Self.json(.ok, String(decoding: data, as: UTF8.self))
        case (.delete, "/_double/requests"):
            state.withLockedValue { $0.recorded.removeAll() }
            return Response(status: .noContent)
        default:
            return Self.json(
                .notFound,
                #"{"error": {"code": "not-found", "message": "the double serves /_double/purchases, /_double/voided, /_double/refund-reviews, /_double/fail and /_double/requests"}}"#
            )
        }
    }

    private static func controlError(_ code: String, _ message: String) -> Response {
        json(
            .badRequest,
            #"{"error": {"code": \#(GooglePlayDoubleSetup.quoted(code)), "message": \#(GooglePlayDoubleSetup.quoted(message))}}"#)
    }

    /// `POST /_double/purchases`'s body; what is left out takes the default of a fresh purchase made now.
    private struct PurchaseInput: Decodable {
        var purchaseToken: String
        var productId: String
        var kind: GooglePlayDoublePurchase.Kind?
        var orderId: String?
        var purchaseState: Int?
        var purchaseTimeMillis: Int64?
        var expiryTimeMillis: Int64?
        var acknowledgementState: Int?
        var consumptionState: Int?
        var purchaseType: Int?
        var quantity: Int?
        var refundableQuantity: Int?
        var purchaseOptionId: String?
        var rentOfferDetails: RentOfferDetails?
        var regionCode: String?
        var autoRenewing: Bool?
        var cancelReason: Int?

        /// The purchase, or nil when a field is out of range; a subscription ends 30 days after it starts unless
        /// told otherwise, and an order id is made up when none is given.
        func purchase(now: Int64) -> GooglePlayDoublePurchase? {
            let state = purchaseState ?? 0
            let acknowledgement = acknowledgementState ?? 0
            let consumption = consumptionState ?? 0
            guard !purchaseToken.isEmpty, !productId.isEmpty, (0...2).contains(state), (0...1).contains(acknowledgement),
                (0...1).contains(consumption), purchaseType.map({ (0...2).contains($0) }) ?? true,
                (1...1_000_000).contains(quantity ?? 1), refundableQuantity.map({ (0...(quantity ?? 1)).contains($0) }) ?? true,
                purchaseOptionId.map({ !$0.isEmpty && $0.utf8.count <= 256 }) ?? true, cancelReason.map({ (0...3).contains($0) }) ?? true
            else { return nil }
            let kind = kind ?? .product
            let bought = purchaseTimeMillis ?? now
            var purchase = GooglePlayDoublePurchase(
                purchaseToken: purchaseToken, productId: productId, kind: kind, orderId: orderId ?? GooglePlayDouble.makeOrderId(),
                purchaseState: state, purchaseTimeMillis: bought,
                // The purchase time comes from the request: a month after it, or the end of time, never a trap.
                expiryTimeMillis: kind == .subscription
                    ? expiryTimeMillis ?? (bought > .max - GooglePlayDouble.voidedWindow ? .max : bought + GooglePlayDouble.voidedWindow)
                    : nil,
                acknowledgementState: acknowledgement, consumptionState: consumption, purchaseType: purchaseType,
                quantity: quantity ?? 1, regionCode: regionCode ?? "US", autoRenewing: autoRenewing, cancelReason: cancelReason)
            purchase.refundableQuantity = refundableQuantity
            purchase.purchaseOptionId = purchaseOptionId
            purchase.rented = rentOfferDetails != nil
            return purchase
        }
    }

    /// `rentOfferDetails`: any object (Google's is empty; a rental's periods are the product's rent option's).
    private struct RentOfferDetails: Decodable {
        init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: AnyKey.self)
        }

        private struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
    }

    /// `POST /_double/voided`'s body; times default to now, the rest to a full refund of a product out of remorse.
    private struct VoidedInput: Decodable {
        var purchaseToken: String
        var orderId: String?
        var purchaseTimeMillis: Int64?
        var voidedTimeMillis: Int64?
        var voidedSource: Int?
        var voidedReason: Int?
        var refundType: Int?
        var voidedQuantity: Int?
        var kind: GooglePlayDoublePurchase.Kind?

        /// The voided purchase, or nil when a field is out of range.
        func voided(now: Int64) -> GooglePlayDoubleVoidedPurchase? {
            let source = voidedSource ?? 0
            let reason = voidedReason ?? 1
            // A voided quantity is a quantity-based partial refund (2), which names its units.
            let refund = refundType ?? (voidedQuantity == nil ? 1 : 2)
            guard !purchaseToken.isEmpty, (0...2).contains(source), (0...8).contains(reason), (1...2).contains(refund),
                (refund == 2) == (voidedQuantity != nil), voidedQuantity.map({ (1...1_000_000).contains($0) }) ?? true
            else { return nil }
            var voided = GooglePlayDoubleVoidedPurchase(
                purchaseToken: purchaseToken, orderId: orderId ?? GooglePlayDouble.makeOrderId(),
                purchaseTimeMillis: purchaseTimeMillis ?? now,
                voidedTimeMillis: voidedTimeMillis ?? now, voidedSource: source, voidedReason: reason, refundType: refund,
                kind: kind ?? .product)
            voided.voidedQuantity = voidedQuantity
            return voided
        }
    }

    /// A made-up order id in Google's shape, `GPA.dddd-dddd-dddd-ddddd`: 17 random digits, so that two purchases made
    /// in one test never share one (Depot takes a purchase's order id as its transaction id).
    package static func makeOrderId() -> String {
        let groups = [4, 4, 4, 5].map { count in String((0..<count).map { _ in Character(String(Int.random(in: 0...9))) }) }
        return "GPA." + groups.joined(separator: "-")
    }
}
