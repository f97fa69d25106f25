extension Catalog {
    /// When a product's next content is published: the earliest publication time after `now` of its versions
    /// (seconds since 1970), nil when none is scheduled. A pre-order of the product (bought before its content is
    /// released) is entitled to it from then on.
    public func nextPublication(of productId: String, after now: Int64) -> Int64? {
        versions.lazy.filter { $0.productId == productId && $0.publishedAt > now }.map(\.publishedAt).min()
    }
}
