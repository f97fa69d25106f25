extension RefundRules {
    /// The units Google Play refunded of a purchase of `quantity`, from a void's `voidedQuantity` and the purchase's
    /// `refundableQuantity` (what can still be refunded): the larger of the two accounts, each counted only when it
    /// is within the quantity (a value out of bounds says nothing); nil when neither says anything.
    public static func googlePlayUnits(quantity: Int, voidedQuantity: Int?, refundableQuantity: Int?) -> Int? {
        guard quantity >= 1 else { return nil }
        var units: Int?
        if let voidedQuantity, (1...quantity).contains(voidedQuantity) { units = voidedQuantity }
        if let refundableQuantity, (0...quantity).contains(refundableQuantity), refundableQuantity < quantity {
            units = max(units ?? 0, quantity - refundableQuantity)
        }
        return units
    }
}
