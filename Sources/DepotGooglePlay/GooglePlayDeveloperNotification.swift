import Foundation

/// A real-time developer notification as Google Play publishes it to Pub/Sub, read from a push request's body
/// (`{"message": {"data": base64, "messageId", "publishTime"}, "subscription"}`). Only what Depot acts on is
/// typed; the state it reports is never trusted: the handler asks the Developer API.
public struct GooglePlayDeveloperNotification: Sendable, Equatable {
    /// What the notification is about.
    public enum Event: Sendable, Equatable {
        /// A one-time product was bought (1) or its pending purchase cancelled (2).
        case oneTimeProduct(type: Int, purchaseToken: String, productId: String)
        /// A subscription changed (renewed, cancelled, revoked, expired ...), by Google's notification type.
        case subscription(type: Int, purchaseToken: String, subscriptionId: String?)
        /// A purchase was voided (refunded, charged back); `productType` 1 subscription, 2 one-time product.
        case voidedPurchase(purchaseToken: String, orderId: String?, productType: Int?)
        /// A customer asked their bank to take a payment back, and Google asks the developer, within 24 hours,
        /// whether to grant the refund (`orders.reviewrefund` with this token).
        case pendingRefundReview(pendingRefundToken: String, orderId: String)
        /// Play Console's test notification.
        case test
        /// An event Depot does not act on (a kind Google added since).
        case other
    }

    /// The app it is about.
    public var packageName: String
    /// When the event happened, milliseconds since 1970.
    public var eventTimeMillis: Int64?
    /// What happened.
    public var event: Event

    /// The longest pending refund token or order id taken (Google's are far shorter).
    public static let maximumFieldLength = 4096

    /// The largest push body read (Pub/Sub messages carrying these notifications are far smaller).
    public static let maximumBodyLength = 64 * 1024

    /// Why a push body is not a developer notification Depot can read.
    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, for the 400 answer.
        public var description: String
    }

    /// The notification in a Pub/Sub push body.
    public init(pushBody: Data) throws(Malformed) {
        guard pushBody.count <= Self.maximumBodyLength else {
            throw Malformed(description: "the push body is longer than \(Self.maximumBodyLength) bytes")
        }
        struct Push: Decodable {
            struct Message: Decodable { var data: String? }
            var message: Message?
        }
        guard let push = try? JSONDecoder().decode(Push.self, from: pushBody), let message = push.message else {
            throw Malformed(description: "the body is not a Pub/Sub push message")
        }
        guard let text = message.data, let data = Data(base64Encoded: text) else {
            throw Malformed(description: "message.data is not base64")
        }
        try self.init(data: data)
    }

    /// The notification in a message's decoded data.
    init(data: Data) throws(Malformed) {
        struct Payload: Decodable {
            struct OneTime: Decodable {
                var notificationType: Int?
                var purchaseToken: String?
                var sku: String?
            }
            struct Subscription: Decodable {
                var notificationType: Int?
                var purchaseToken: String?
                var subscriptionId: String?
            }
            struct Voided: Decodable {
                var purchaseToken: String?
                var orderId: String?
                var productType: Int?
            }
            struct RefundReview: Decodable {
                var pendingRefundToken: String?
                var orderId: String?
            }
            struct Test: Decodable { var version: String? }
            var packageName: String?
            var eventTimeMillis: Millis?
            var oneTimeProductNotification: OneTime?
            var subscriptionNotification: Subscription?
            var voidedPurchaseNotification: Voided?
            var pendingRefundReviewNotification: RefundReview?
            var testNotification: Test?
        }
        guard let payload = try? JSONDecoder().decode(Payload.self, from: data) else {
            throw Malformed(description: "message.data is not a developer notification")
        }
        guard let packageName = payload.packageName, !packageName.isEmpty else {
            throw Malformed(description: "the notification has no packageName")
        }
        let event: Event
        if let oneTime = payload.oneTimeProductNotification {
            guard let token = oneTime.purchaseToken, !token.isEmpty, let sku = oneTime.sku, !sku.isEmpty else {
                throw Malformed(description: "oneTimeProductNotification lacks purchaseToken or sku")
            }
            event = .oneTimeProduct(type: oneTime.notificationType ?? 0, purchaseToken: token, productId: sku)
        } else if let subscription = payload.subscriptionNotification {
            guard let token = subscription.purchaseToken, !token.isEmpty else {
                throw Malformed(description: "subscriptionNotification lacks purchaseToken")
            }
            event = .subscription(
                type: subscription.notificationType ?? 0, purchaseToken: token, subscriptionId: subscription.subscriptionId)
        } else if let voided = payload.voidedPurchaseNotification {
            guard let token = voided.purchaseToken, !token.isEmpty else {
                throw Malformed(description: "voidedPurchaseNotification lacks purchaseToken")
            }
            event = .voidedPurchase(purchaseToken: token, orderId: voided.orderId, productType: voided.productType)
        } else if let review = payload.pendingRefundReviewNotification {
            guard let token = review.pendingRefundToken, !token.isEmpty, token.utf8.count <= Self.maximumFieldLength,
                let orderId = review.orderId, !orderId.isEmpty, orderId.utf8.count <= Self.maximumFieldLength
            else {
                throw Malformed(
                    description: "pendingRefundReviewNotification lacks pendingRefundToken or orderId (or one is longer than "
                        + "\(Self.maximumFieldLength) bytes)")
            }
            event = .pendingRefundReview(pendingRefundToken: token, orderId: orderId)
        } else if payload.testNotification != nil {
            event = .test
        } else {
            event = .other
        }
        self.packageName = packageName
        self.eventTimeMillis = payload.eventTimeMillis?.value
        self.event = event
    }
}

/// Milliseconds since 1970 as Google writes them: a decimal string (as its notifications do) or a number (as its
/// reference types them). One that does not fit an `Int64` is nil, never trapped on.
struct Millis: Decodable {
    var value: Int64?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            value = Int64(text)
        } else if let number = try? container.decode(Double.self), number.isFinite, abs(number) < 9.2e18 {
            value = Int64(number)
        } else {
            value = nil
        }
    }
}
