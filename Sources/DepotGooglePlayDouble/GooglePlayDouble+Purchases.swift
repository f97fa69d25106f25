import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// The Android Publisher endpoints, under `/androidpublisher/v3/applications/{packageName}/purchases/`:
/// - `GET products/{productId}/tokens/{token}`: the `ProductPurchase`;
/// - `POST products/{productId}/tokens/{token}:acknowledge` (body optional `{"developerPayload"}`) and
///   `POST products/{productId}/tokens/{token}:consume`: 200 with an empty body;
/// - `GET subscriptions/{subscriptionId}/tokens/{token}`: the `SubscriptionPurchase`;
/// - `GET productsv2/tokens/{token}`: a one-time purchase as `ProductPurchaseV2`, its line item's purchase option
///   and, for a rented one, `rentOfferDetails`;
/// - `POST subscriptions/{subscriptionId}/tokens/{token}:acknowledge`: 200 with an empty body;
/// - `GET voidedpurchases` (see `GooglePlayDouble+Voided.swift`).
/// A token not held, or held for another product or kind, is 400 `invalid`; acknowledging what is acknowledged,
/// consuming what is consumed, or either for a cancelled or pending purchase, 400 `invalidPurchaseState`.
extension GooglePlayDouble {
    /// What a request under `/androidpublisher/v3/` asks of a purchase.
    private enum Action {
        case get
        case acknowledge
        case consume
    }

    /// Google's answer for an API path.
    func route(_ method: HTTPRequest.Method, path: String, query: String?, body: ByteBuffer) -> Response {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            $0.removingPercentEncoding ?? String($0)
        }
        guard segments.count >= 6, Array(segments[0...2]) == ["androidpublisher", "v3", "applications"] else { return Self.urlNotFound }
        if segments.count == 6, segments[4] == "orders", method == .post, segments[5].hasSuffix(":reviewrefund") {
            guard segments[3] == packageName else { return Self.applicationNotFound }
            return reviewRefund(orderId: String(segments[5].dropLast(":reviewrefund".count)), body: body)
        }
        guard segments[4] == "purchases" else { return Self.urlNotFound }
        switch segments.count {
        case 8 where segments[5] == "productsv2" && segments[6] == "tokens" && method == .get:
            guard segments[3] == packageName else { return Self.applicationNotFound }
            guard let held = state.withLockedValue({ $0.purchases[segments[7]] }), held.kind == .product else { return Self.invalidValue }
            return Self.json(.ok, Self.productPurchaseV2(held))
        case 6 where segments[5] == "voidedpurchases" && method == .get:
            guard segments[3] == packageName else { return Self.applicationNotFound }
            return voidedPurchases(query: query)
        case 9 where segments[7] == "tokens":
            let kind: GooglePlayDoublePurchase.Kind
            switch segments[5] {
            case "products": kind = .product
            case "subscriptions": kind = .subscription
            default: return Self.urlNotFound
            }
            var token = segments[8]
            var action = Action.get
            if let colon = token.lastIndex(of: ":") {
                switch (method, token[token.index(after: colon)...]) {
                case (.post, "acknowledge"): action = .acknowledge
                case (.post, "consume") where kind == .product: action = .consume
                default: return Self.urlNotFound
                }
                token = String(token[..<colon])
            } else if method != .get {
                return Self.urlNotFound
            }
            guard segments[3] == packageName else { return Self.applicationNotFound }
            switch action {
            case .get: return show(token: token, productId: segments[6], kind: kind)
            case .acknowledge: return acknowledge(token: token, productId: segments[6], kind: kind, body: body)
            case .consume: return consume(token: token, productId: segments[6])
            }
        default:
            return Self.urlNotFound
        }
    }

    private func show(token: String, productId: String, kind: GooglePlayDoublePurchase.Kind) -> Response {
        guard let held = state.withLockedValue({ $0.purchases[token] }), held.productId == productId, held.kind == kind else {
            return Self.invalidValue
        }
        return Self.json(.ok, kind == .product ? Self.productPurchase(held) : Self.subscriptionPurchase(held))
    }

    private func acknowledge(token: String, productId: String, kind: GooglePlayDoublePurchase.Kind, body: ByteBuffer) -> Response {
        var payload: String?
        let text = String(buffer: body)
        if !text.allSatisfy(\.isWhitespace) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                object["developerPayload"] == nil || object["developerPayload"] is String
            else {
                return Self.googleError(.badRequest, "Invalid JSON payload received.", status: "INVALID_ARGUMENT", reason: "parseError")
            }
            payload = object["developerPayload"] as? String
        }
        return state.withLockedValue { state in
            guard var held = state.purchases[token], held.productId == productId, held.kind == kind else { return Self.invalidValue }
            guard held.purchaseState == 0, held.acknowledgementState == 0 else { return Self.invalidPurchaseState }
            held.acknowledgementState = 1
            if let payload { held.developerPayload = payload }
            state.purchases[token] = held
            return Response(status: .ok)
        }
    }

    private func consume(token: String, productId: String) -> Response {
        state.withLockedValue { state in
            guard var held = state.purchases[token], held.productId == productId, held.kind == .product else { return Self.invalidValue }
            guard held.purchaseState == 0, held.consumptionState == 0 else { return Self.invalidPurchaseState }
            held.consumptionState = 1
            held.acknowledgementState = 1
            state.purchases[token] = held
            return Response(status: .ok)
        }
    }

    /// A `ProductPurchase` resource.
    static func productPurchase(_ held: GooglePlayDoublePurchase) -> String {
        object([
            ("kind", #""androidpublisher#productPurchase""#),
            ("purchaseTimeMillis", GooglePlayDoubleSetup.quoted(String(held.purchaseTimeMillis))),
            ("purchaseState", String(held.purchaseState)),
            ("consumptionState", String(held.consumptionState)),
            ("developerPayload", held.developerPayload.map(GooglePlayDoubleSetup.quoted)),
            ("orderId", GooglePlayDoubleSetup.quoted(held.orderId)),
            ("purchaseType", held.purchaseType.map { String($0) }),
            ("acknowledgementState", String(held.acknowledgementState)),
            ("productId", GooglePlayDoubleSetup.quoted(held.productId)),
            ("quantity", String(held.quantity)),
            ("refundableQuantity", String(held.refundableQuantity ?? (held.purchaseState == 1 ? 0 : held.quantity))),
            ("purchaseOptionId", held.purchaseOptionId.map(GooglePlayDoubleSetup.quoted)),
            ("regionCode", GooglePlayDoubleSetup.quoted(held.regionCode)),
        ])
    }

    /// A `ProductPurchaseV2` resource: one line item, with its offer's purchase option and, rented, `rentOfferDetails`.
    static func productPurchaseV2(_ held: GooglePlayDoublePurchase) -> String {
        let states = ["PURCHASED", "CANCELLED", "PENDING"]
        let offer = object([
            ("purchaseOptionId", held.purchaseOptionId.map(GooglePlayDoubleSetup.quoted)),
            ("quantity", String(held.quantity)),
            ("refundableQuantity", String(held.refundableQuantity ?? (held.purchaseState == 1 ? 0 : held.quantity))),
            ("rentOfferDetails", held.rented ? "{}" : nil),
            (
                "consumptionState",
                GooglePlayDoubleSetup.quoted(
                    held.consumptionState == 1 ? "CONSUMPTION_STATE_CONSUMED" : "CONSUMPTION_STATE_YET_TO_BE_CONSUMED")
            ),
        ])
        let item = object([("productId", GooglePlayDoubleSetup.quoted(held.productId)), ("productOfferDetails", offer)])
        return object([
            ("kind", #""androidpublisher#productPurchaseV2""#),
            ("productLineItem", "[" + item + "]"),
            ("orderId", GooglePlayDoubleSetup.quoted(held.orderId)),
            ("purchaseStateContext", object([("purchaseState", GooglePlayDoubleSetup.quoted(states[max(0, min(2, held.purchaseState))]))])),
            ("regionCode", GooglePlayDoubleSetup.quoted(held.regionCode)),
        ])
    }

    /// A `SubscriptionPurchase` resource: renewing while purchased unless told otherwise, payment received unless
    /// pending, and a cancel reason (0, by the user, unless told another) once cancelled.
    static func subscriptionPurchase(_ held: GooglePlayDoublePurchase) -> String {
        let cancelled = held.purchaseState == 1
        return object([
            ("kind", #""androidpublisher#subscriptionPurchase""#),
            ("startTimeMillis", GooglePlayDoubleSetup.quoted(String(held.purchaseTimeMillis))),
            ("expiryTimeMillis", GooglePlayDoubleSetup.quoted(String(held.expiryTimeMillis ?? held.purchaseTimeMillis))),
            ("autoRenewing", String(held.autoRenewing ?? (held.purchaseState == 0))),
            ("countryCode", GooglePlayDoubleSetup.quoted(held.regionCode)),
            ("developerPayload", held.developerPayload.map(GooglePlayDoubleSetup.quoted)),
            ("paymentState", held.purchaseState == 2 ? "0" : "1"),
            ("cancelReason", held.cancelReason.map { String($0) } ?? (cancelled ? "0" : nil)),
            ("orderId", GooglePlayDoubleSetup.quoted(held.orderId)),
            ("purchaseType", held.purchaseType.map { String($0) }),
            ("acknowledgementState", String(held.acknowledgementState)),
        ])
    }
}
