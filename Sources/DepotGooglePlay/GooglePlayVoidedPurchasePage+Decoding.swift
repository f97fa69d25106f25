extension GooglePlayVoidedPurchasePage.VoidedPurchase {
    private enum CodingKeys: String, CodingKey {
        case purchaseToken, orderId, voidedTimeMillis, voidedReason, voidedSource, refundType, voidedQuantity
    }

    /// Decodes a voided purchase, reading each number leniently: one that is not an `Int` (a fraction, a value past
    /// `Int`'s range, a string) reads as absent, so that one odd value says nothing of that purchase instead of
    /// making the whole page unreadable (and the poll fail until Google's window moves past it).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func number(_ key: CodingKeys) -> Int? { (try? container.decodeIfPresent(Int.self, forKey: key)) ?? nil }
        func text(_ key: CodingKeys) -> String? { (try? container.decodeIfPresent(String.self, forKey: key)) ?? nil }
        purchaseToken = text(.purchaseToken)
        orderId = text(.orderId)
        voidedTimeMillis = text(.voidedTimeMillis)
        voidedReason = number(.voidedReason)
        voidedSource = number(.voidedSource)
        refundType = number(.refundType)
        voidedQuantity = number(.voidedQuantity)
    }
}
