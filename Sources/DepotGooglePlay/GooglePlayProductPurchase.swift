/// A one-time purchase as `purchases.products.get` answers it (the fields Depot reads; the others are ignored).
public struct GooglePlayProductPurchase: Decodable, Sendable, Equatable {
    /// 0 purchased, 1 canceled (refunded, voided), 2 pending.
    public var purchaseState: Int?
    /// 0 yet to be consumed, 1 consumed.
    public var consumptionState: Int?
    /// 0 yet to be acknowledged, 1 acknowledged.
    public var acknowledgementState: Int?
    /// The order id.
    public var orderId: String?
    /// How it was bought when not in the ordinary way: 0 a test (a license tester), 1 a promo code, 2 rewarded
    /// (a video watched); absent for an ordinary purchase.
    public var purchaseType: Int?
    /// How many units were bought, when Google says.
    public var quantity: Int?
    /// How many units can still be refunded: below `quantity` once some were refunded (quantity-based partial
    /// refunds), 0 once all were.
    public var refundableQuantity: Int?

    /// Creates a purchase record.
    public init(
        purchaseState: Int?, consumptionState: Int?, acknowledgementState: Int?, orderId: String?, purchaseType: Int? = nil,
        quantity: Int? = nil, refundableQuantity: Int? = nil
    ) {
        self.quantity = quantity
        self.refundableQuantity = refundableQuantity
        self.purchaseState = purchaseState
        self.consumptionState = consumptionState
        self.acknowledgementState = acknowledgementState
        self.orderId = orderId
        self.purchaseType = purchaseType
    }
}
