extension Catalog {
    /// The type a transaction of `productId` is judged by: `recorded`, the type it was redeemed under, when the
    /// ledger kept one; else the product's type in this catalog (a transaction recorded before types were kept);
    /// nil when there is neither.
    ///
    /// A product's type is fixed once it is sold, but a transaction redeemed before that rule, or racing a change,
    /// keeps the terms it was answered under: a non-consumable turned consumable is never "finished" for its
    /// buyers, and a consumable turned non-consumable never downloads again once finished.
    public func judgedType(productId: String, recorded: ProductType?) -> ProductType? {
        recorded ?? product(id: productId)?.type
    }
}
