/// One page of `purchases.voidedpurchases.list`.
public struct GooglePlayVoidedPurchasePage: Decodable, Sendable, Equatable {
    /// One voided purchase.
    public struct VoidedPurchase: Decodable, Sendable, Equatable {
        /// The purchase's token.
        public var purchaseToken: String?
        /// Its order id (absent for some test purchases).
        public var orderId: String?
        /// When it was voided, milliseconds since 1970, as a decimal string.
        public var voidedTimeMillis: String?
        /// Why: 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud, 6 friendly fraud,
        /// 7 chargeback, 8 unacknowledged purchase.
        public var voidedReason: Int?
        /// Who: 0 user, 1 developer, 2 Google.
        public var voidedSource: Int?
        /// 1 a full refund, 2 a quantity-based partial refund (listed with `includeQuantityBasedPartialRefund`).
        public var refundType: Int?
        /// For a quantity-based partial refund, how many units were voided.
        public var voidedQuantity: Int?

        /// When it was voided, milliseconds since 1970, or nil when the field is absent or not a number.
        public var voidedAtMillis: Int64? { voidedTimeMillis.flatMap { Int64($0) } }
    }

    /// The page token of the next page, when there is one.
    public struct TokenPagination: Decodable, Sendable, Equatable {
        /// The token to send for the next page.
        public var nextPageToken: String?
    }

    /// The voided purchases on this page (absent when none).
    public var voidedPurchases: [VoidedPurchase]?
    /// Where the next page starts.
    public var tokenPagination: TokenPagination?
}
