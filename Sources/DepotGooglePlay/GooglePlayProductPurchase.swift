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

    /// Creates a purchase record.
    public init(purchaseState: Int?, consumptionState: Int?, acknowledgementState: Int?, orderId: String?) {
        self.purchaseState = purchaseState
        self.consumptionState = consumptionState
        self.acknowledgementState = acknowledgementState
        self.orderId = orderId
    }
}
