/// A subscription purchase as `purchases.subscriptions.get` answers it (the fields Depot reads).
public struct GooglePlaySubscriptionPurchase: Decodable, Sendable, Equatable {
    /// When the subscription started, milliseconds since 1970, as a decimal string.
    public var startTimeMillis: String?
    /// When the current period ends, milliseconds since 1970, as a decimal string.
    public var expiryTimeMillis: String?
    /// Why it was cancelled, when it was: 0 by the user, 1 by the system (billing), 2 replaced, 3 by the developer.
    public var cancelReason: Int?
    /// The latest order id (`<first order>..<renewal>`).
    public var orderId: String?
    /// 0 yet to be acknowledged, 1 acknowledged.
    public var acknowledgementState: Int?
    /// How it was bought when not in the ordinary way: 0 a test (a license tester), 1 a promo code; absent for an
    /// ordinary purchase.
    public var purchaseType: Int?

    /// When the current period ends, milliseconds since 1970, or nil when absent or not a number.
    public var expiresAtMillis: Int64? { expiryTimeMillis.flatMap { Int64($0) } }
}
