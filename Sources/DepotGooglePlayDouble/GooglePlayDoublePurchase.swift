/// A purchase the double holds, as the Google Play Developer API reports it for its purchase token: a one-time
/// product (`ProductPurchase`) or a subscription (`SubscriptionPurchase`).
package struct GooglePlayDoublePurchase: Codable, Sendable, Equatable {
    /// What was bought: a one-time product or a subscription.
    package enum Kind: String, Codable, Sendable {
        /// A one-time product (`purchases.products`).
        case product
        /// A subscription (`purchases.subscriptions`).
        case subscription
    }

    /// The purchase token Play gave the app.
    package var purchaseToken: String
    /// The product or subscription id.
    package var productId: String
    /// Product or subscription.
    package var kind: Kind
    /// The order id (`GPA.…`).
    package var orderId: String
    /// 0 purchased, 1 cancelled (or voided), 2 pending.
    package var purchaseState: Int
    /// When it was bought (a subscription's `startTimeMillis`), in milliseconds since 1970.
    package var purchaseTimeMillis: Int64
    /// When a subscription ends, in milliseconds since 1970 (nil for products).
    package var expiryTimeMillis: Int64?
    /// 0 not yet acknowledged, 1 acknowledged.
    package var acknowledgementState: Int
    /// 0 not yet consumed, 1 consumed (products only).
    package var consumptionState: Int
    /// 0 test, 1 promo, 2 rewarded; nil for an ordinary purchase (Google then omits the field).
    package var purchaseType: Int?
    /// How many were bought.
    package var quantity: Int
    /// How many can still be refunded: `quantity` until some are refunded (quantity-based partial refunds), 0 once
    /// all are; nil reports `quantity` while purchased, 0 once cancelled.
    package var refundableQuantity: Int?
    /// The purchase option of a one-time product (buy, rent, pre-order) it was bought with, when set.
    package var purchaseOptionId: String?
    /// Whether `purchases.productsv2` marks it rented (`rentOfferDetails`, an empty object as Google sends it).
    package var rented = false
    /// The buyer's region (ISO 3166-1 alpha-2).
    package var regionCode: String
    /// Whether a subscription renews; nil to derive it from `purchaseState` (renewing while purchased).
    package var autoRenewing: Bool?
    /// Why a subscription was cancelled; nil to derive it (0, user, once `purchaseState` is 1).
    package var cancelReason: Int?
    /// The payload given when it was acknowledged, if any.
    package var developerPayload: String?

    /// A purchase; the defaults are a fresh, unacknowledged, unconsumed one-time purchase.
    package init(
        purchaseToken: String, productId: String, kind: Kind = .product, orderId: String, purchaseState: Int = 0,
        purchaseTimeMillis: Int64, expiryTimeMillis: Int64? = nil, acknowledgementState: Int = 0, consumptionState: Int = 0,
        purchaseType: Int? = nil, quantity: Int = 1, regionCode: String = "US", autoRenewing: Bool? = nil,
        cancelReason: Int? = nil, developerPayload: String? = nil
    ) {
        self.purchaseToken = purchaseToken
        self.productId = productId
        self.kind = kind
        self.orderId = orderId
        self.purchaseState = purchaseState
        self.purchaseTimeMillis = purchaseTimeMillis
        self.expiryTimeMillis = expiryTimeMillis
        self.acknowledgementState = acknowledgementState
        self.consumptionState = consumptionState
        self.purchaseType = purchaseType
        self.quantity = quantity
        self.regionCode = regionCode
        self.autoRenewing = autoRenewing
        self.cancelReason = cancelReason
        self.developerPayload = developerPayload
    }
}
