/// The kinds of product an app sells through the App Store, as Depot's catalog names them.
///
/// The raw values are the strings of the public contract (`GET /v1/products` → `type`).
public enum ProductType: String, Sendable, Codable, CaseIterable {
    /// Bought once per transaction, many times overall; downloads allowed until that transaction is finished.
    case consumable
    /// Bought once; always downloadable again.
    case nonConsumable
    /// An auto-renewable subscription: issues published inside an active period.
    case autoRenewable
    /// A non-renewing subscription: a period computed from the purchase date and the product's duration.
    case nonRenewing
    /// A free subscription: every issue.
    case freeSubscription

    /// Whether the product delivers issues of a periodical rather than one piece of content.
    public var isSubscription: Bool {
        switch self {
        case .autoRenewable, .nonRenewing, .freeSubscription: true
        case .consumable, .nonConsumable: false
        }
    }
}
