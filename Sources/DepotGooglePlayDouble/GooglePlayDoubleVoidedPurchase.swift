/// A voided purchase the double lists from `purchases.voidedpurchases`, as Google's `VoidedPurchase`.
package struct GooglePlayDoubleVoidedPurchase: Codable, Sendable, Equatable {
    /// The voided purchase's token.
    package var purchaseToken: String
    /// Its order id.
    package var orderId: String
    /// When it was bought, in milliseconds since 1970.
    package var purchaseTimeMillis: Int64
    /// When it was voided, in milliseconds since 1970.
    package var voidedTimeMillis: Int64
    /// 0 user, 1 developer, 2 Google.
    package var voidedSource: Int
    /// 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud, 6 friendly fraud,
    /// 7 chargeback, 8 unacknowledged purchase.
    package var voidedReason: Int
    /// 1 full refund, 2 quantity-based partial refund.
    package var refundType: Int
    /// Product or subscription: listed with `type=0` only when a product.
    package var kind: GooglePlayDoublePurchase.Kind
    /// For a quantity-based partial refund (`refundType` 2), the units voided; listed only to a caller that asks
    /// with `includeQuantityBasedPartialRefund=true`.
    package var voidedQuantity: Int? = nil

    /// A voided purchase; the defaults are a full refund the user asked for out of remorse, of a product.
    package init(
        purchaseToken: String, orderId: String, purchaseTimeMillis: Int64, voidedTimeMillis: Int64, voidedSource: Int = 0,
        voidedReason: Int = 1, refundType: Int = 1, kind: GooglePlayDoublePurchase.Kind = .product
    ) {
        self.purchaseToken = purchaseToken
        self.orderId = orderId
        self.purchaseTimeMillis = purchaseTimeMillis
        self.voidedTimeMillis = voidedTimeMillis
        self.voidedSource = voidedSource
        self.voidedReason = voidedReason
        self.refundType = refundType
        self.kind = kind
    }
}
