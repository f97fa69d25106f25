extension GooglePlayProductPurchase {
    private enum CodingKeys: String, CodingKey {
        case purchaseState, consumptionState, acknowledgementState, orderId, purchaseType, quantity, refundableQuantity
    }

    /// Decodes a purchase as Google answers it; `quantity` and `refundableQuantity` are read leniently (a value that
    /// is not an `Int` reads as absent, and says nothing of refunds), so that an odd one never makes the purchase
    /// unreadable.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        purchaseState = try container.decodeIfPresent(Int.self, forKey: .purchaseState)
        consumptionState = try container.decodeIfPresent(Int.self, forKey: .consumptionState)
        acknowledgementState = try container.decodeIfPresent(Int.self, forKey: .acknowledgementState)
        orderId = try container.decodeIfPresent(String.self, forKey: .orderId)
        purchaseType = try container.decodeIfPresent(Int.self, forKey: .purchaseType)
        quantity = (try? container.decodeIfPresent(Int.self, forKey: .quantity)) ?? nil
        refundableQuantity = (try? container.decodeIfPresent(Int.self, forKey: .refundableQuantity)) ?? nil
    }
}
