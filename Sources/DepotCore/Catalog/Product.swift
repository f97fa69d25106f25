/// A product as the publisher configured it: its App Store identifier, kind and display title.
public struct Product: Sendable, Equatable, Codable {
    /// The App Store product identifier, e.g. `com.example.game.level1`.
    public var id: String
    /// What kind of product this is.
    public var type: ProductType
    /// A title for people.
    public var title: String
    /// For a non-renewing subscription, the length of one purchased period in seconds.
    public var periodSeconds: Int64?

    /// Creates a product.
    public init(id: String, type: ProductType, title: String, periodSeconds: Int64? = nil) {
        self.id = id
        self.type = type
        self.title = title
        self.periodSeconds = periodSeconds
    }
}
