extension PurchaseOwnership {
    /// Whether a product of `type` may be family shared: non-consumables and subscriptions, as Apple allows,
    /// never consumables.
    public static func canShare(_ type: ProductType) -> Bool { type != .consumable }
}
