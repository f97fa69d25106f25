import DepotAPI
import DepotCore
import DepotLedger

/// The rules a publisher's product must follow, each with its own error code (400).
enum ProductValidation {
    /// The ``Identifier`` rule: 1-128 ASCII letters, digits, `.`, `_`, `-`, not starting with `.` (App Store
    /// product identifiers; content ids name an app's folders).
    static func isValidProductId(_ id: String) -> Bool {
        Identifier.isAcceptable(id)
    }

    /// The ``VersionName`` rule: 1-64 printable ASCII characters, no space or `/`, not starting with `.`.
    static func isValidVersion(_ version: String) -> Bool {
        VersionName.isAcceptable(version)
    }

    /// The product a `PUT` body describes, or a 400 naming the first problem.
    static func product(id: String, _ body: ProductRequest) throws(DepotError) -> CatalogProduct {
        guard let typeText = body.type, let type = ProductType(rawValue: typeText) else {
            throw DepotError(
                .invalidType, "\"type\" must be one of \(ProductType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let title = body.title, !title.allSatisfy(\.isWhitespace), title.count <= 200,
            title.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else {
            throw DepotError(.invalidTitle, "\"title\" must be 1-200 characters without control characters")
        }
        switch (type, body.periodDays) {
        case (.nonRenewing, .some(let days)) where (1...36_500).contains(days):
            return CatalogProduct(id: id, type: type, title: title, periodDays: days)
        case (.nonRenewing, _):
            throw DepotError(.invalidPeriod, "a nonRenewing product needs \"periodDays\" between 1 and 36500")
        // An auto-renewable product's period is optional: the offline entitlement of a Google Play subscription.
        case (.autoRenewable, .some(let days)) where (1...36_500).contains(days):
            return CatalogProduct(id: id, type: type, title: title, periodDays: days)
        case (.autoRenewable, .some):
            throw DepotError(.invalidPeriod, "an autoRenewable product's \"periodDays\" must be between 1 and 36500")
        case (_, .some):
            throw DepotError(.invalidPeriod, "\"periodDays\" is only for nonRenewing and autoRenewable products")
        case (_, .none):
            return CatalogProduct(id: id, type: type, title: title)
        }
    }
}
