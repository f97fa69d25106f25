/// Verified renewal information of an auto-renewable subscription (the payload of `JWSRenewalInfo`).
///
/// Reads `originalTransactionId`, `productId`, `signedDate` and `environment` (required) and the renewal
/// fields below when present. Renewal info carries no `bundleId`; as in Apple's library only its environment
/// is checked. The whole payload stays in ``fields``.
package struct SignedRenewalInfo: Sendable, Equatable {
    /// The subscription's original transaction.
    package var originalTransactionId: String
    /// The product the subscription currently is.
    package var productId: String
    /// The product that renews next.
    package var autoRenewProductId: String?
    /// 1 when the subscription renews automatically, 0 when turned off.
    package var autoRenewStatus: Int?
    /// Why the subscription expired (1 cancelled, 2 billing error, ...).
    package var expirationIntent: Int?
    /// When a billing grace period ends, in milliseconds since 1970.
    package var gracePeriodExpiresDate: Int64?
    /// Whether the App Store is still trying to renew.
    package var isInBillingRetryPeriod: Bool?
    /// When the next renewal happens, in milliseconds since 1970.
    package var renewalDate: Int64?
    /// The UUID the app set to link the purchase to its own user account.
    package var appAccountToken: String?
    /// `Production`, `Sandbox`, `Xcode`, `LocalTesting`, or a value added later.
    package var environment: String
    /// When the App Store signed this payload, in milliseconds since 1970.
    package var signedDate: Int64
    /// The whole payload, unknown keys included.
    package var fields: [String: JSONValue]

    /// Decodes a payload; fails only when a required field is missing or a field has the wrong shape.
    init(payload: [String: JSONValue]) throws(AppStoreVerificationError) {
        let reader = PayloadFields(object: payload, kind: "renewal info")
        originalTransactionId = try reader.string("originalTransactionId")
        productId = try reader.string("productId")
        autoRenewProductId = try reader.optionalString("autoRenewProductId")
        autoRenewStatus = try reader.optionalInt("autoRenewStatus")
        expirationIntent = try reader.optionalInt("expirationIntent")
        gracePeriodExpiresDate = try reader.optionalDate("gracePeriodExpiresDate")
        isInBillingRetryPeriod = try reader.optionalBool("isInBillingRetryPeriod")
        renewalDate = try reader.optionalDate("renewalDate")
        appAccountToken = try reader.optionalString("appAccountToken")
        environment = try reader.string("environment")
        signedDate = try reader.date("signedDate")
        fields = payload
    }
}
