/// An App Store app receipt's payload (Receipt Validation Programming Guide, "Receipt Fields"), read from its
/// attribute set: what the app is, when the receipt was made, and its in-app purchase records.
package struct AppReceipt: Sendable, Equatable {
    /// Attribute 0: `Production`, `ProductionSandbox` or `Xcode`, as written.
    package var receiptType: String
    /// Attribute 2: the app's bundle id.
    package var bundleId: String
    /// The DER of attribute 2's UTF8String (tag and length included): an input of the device hash.
    package var bundleIdDER: [UInt8]
    /// Attribute 3: the app version (`CFBundleVersion`).
    package var appVersion: String
    /// Attribute 4: the opaque value, an input of the device hash.
    package var opaqueValue: [UInt8]
    /// Attribute 5: the SHA-1 of the device id, opaque value and bundle id DER.
    package var sha1Hash: [UInt8]
    /// Attribute 12: when the receipt was made, in milliseconds since 1970: the time its chain is judged at.
    package var creationDate: Int64
    /// Attribute 19: the version first bought, when present.
    package var originalAppVersion: String?
    /// Attribute 21: when the receipt expires (Volume Purchase Program, Xcode), when present.
    package var expirationDate: Int64?
    /// Attribute 17: the in-app purchase records, in payload order.
    package var inAppPurchases: [InAppPurchase]

    /// The environment in the App Store's words, as a JWS names it: `ProductionSandbox` is `Sandbox`; other
    /// values are kept as written.
    package var environment: String {
        receiptType == "ProductionSandbox" ? AppStoreEnvironment.sandbox : receiptType
    }

    /// One in-app purchase record (attribute 17's nested set).
    package struct InAppPurchase: Sendable, Equatable {
        /// 1701: how many were bought.
        package var quantity: Int
        /// 1702: the product id.
        package var productId: String
        /// 1703: the transaction id.
        package var transactionId: String
        /// 1705: the original transaction id, shared by a subscription's renewals.
        package var originalTransactionId: String
        /// 1704: when it was bought (or renewed), milliseconds since 1970.
        package var purchaseDate: Int64
        /// 1706: when the original transaction was bought, when present.
        package var originalPurchaseDate: Int64?
        /// 1708: when a subscription period ends, when present.
        package var expiresDate: Int64?
        /// 1712: when Apple customer support cancelled (refunded) it, when it did.
        package var cancellationDate: Int64?
        /// 1720: why it was cancelled (0 other, 1 an app issue), when present.
        package var cancellationReason: Int?
        /// 1711: the web order line item id of a subscription, when present.
        package var webOrderLineItemId: Int64?
        /// 1707: the product type some receipts carry (0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable).
        package var productType: Int?
    }
}
