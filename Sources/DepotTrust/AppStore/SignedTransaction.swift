#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
#endif

/// A verified App Store transaction (the payload of `JWSTransaction`).
///
/// Reads `transactionId`, `originalTransactionId`, `productId`, `bundleId`, `purchaseDate`, `signedDate` and
/// `environment` (all required), and `type`, `expiresDate`, `revocationDate`, `revocationReason`,
/// `revocationType`, `revocationPercentage`, `quantity`, `appAccountToken`, `inAppOwnershipType`, `webOrderLineItemId`, `subscriptionGroupIdentifier` when present.
/// Dates are milliseconds since 1970. Enum-like strings (`type`, `environment`, `inAppOwnershipType`) are kept as
/// they came, so values Apple adds later pass through; the whole payload stays in ``fields``.
package struct SignedTransaction: Sendable, Equatable {
    /// The purchase's unique id.
    package var transactionId: String
    /// The first transaction of this purchase (equal to `transactionId` except for renewals and restores).
    package var originalTransactionId: String
    /// The product bought.
    package var productId: String
    /// The product type as Apple writes it: `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable`,
    /// `Non-Renewing Subscription`, or a value added later; empty when absent.
    package var type: String
    /// When the App Store charged (or, for a renewal, renewed), in milliseconds since 1970.
    package var purchaseDate: Int64
    /// When an auto-renewable subscription period ends, in milliseconds since 1970.
    package var expiresDate: Int64?
    /// When the App Store refunded or revoked the transaction, in milliseconds since 1970.
    package var revocationDate: Int64?
    /// Why it was revoked (0 other, 1 an app issue), when revoked.
    package var revocationReason: Int?
    /// `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`, or a value added later, when revoked.
    package var revocationType: String?
    /// The share refunded or revoked, in milliunits of the whole quantity (0 to 100000), when Apple says.
    package var revocationPercentage: Int?
    /// How many consumables were bought; 1 when absent.
    package var quantity: Int
    /// The UUID the app set to link the purchase to its own user account.
    package var appAccountToken: String?
    /// `PURCHASED` or `FAMILY_SHARED`, or a value added later.
    package var inAppOwnershipType: String?
    /// `Production`, `Sandbox`, `Xcode`, `LocalTesting`, or a value added later.
    package var environment: String
    /// The app's bundle id.
    package var bundleId: String
    /// When the App Store signed this payload, in milliseconds since 1970.
    package var signedDate: Int64
    /// Identifies a subscription purchase event across devices.
    package var webOrderLineItemId: String?
    /// The subscription group of an auto-renewable subscription.
    package var subscriptionGroupIdentifier: String?
    /// The whole payload, unknown keys included.
    package var fields: [String: JSONValue]

    /// The quantities accepted: the App Store sells at most a few consumables at once; the bound keeps any
    /// product of a quantity and a period far from `Int64`'s edge.
    static let quantities = 1...1_000_000

    /// Decodes a payload; fails with `payload-malformed` when a required field is missing or a field has the
    /// wrong shape (a date outside ``AppStoreDate/milliseconds``, a quantity outside ``quantities``, a
    /// `revocationPercentage` outside 0...100000), and with `payload-inconsistent` when its values cannot be true (see ``checkConsistency()``).
    init(payload: [String: JSONValue]) throws(AppStoreVerificationError) {
        let reader = PayloadFields(object: payload, kind: "transaction")
        transactionId = try reader.string("transactionId")
        originalTransactionId = try reader.string("originalTransactionId")
        productId = try reader.string("productId")
        type = try reader.optionalString("type") ?? ""
        purchaseDate = try reader.date("purchaseDate")
        expiresDate = try reader.optionalDate("expiresDate")
        revocationDate = try reader.optionalDate("revocationDate")
        revocationReason = try reader.optionalInt("revocationReason")
        revocationType = try reader.optionalString("revocationType")
        revocationPercentage = try reader.optionalCount("revocationPercentage", in: PurchaseRevocation.percentages)
        quantity = try reader.optionalCount("quantity", in: Self.quantities) ?? 1
        appAccountToken = try reader.optionalString("appAccountToken")
        inAppOwnershipType = try reader.optionalString("inAppOwnershipType")
        environment = try reader.string("environment")
        bundleId = try reader.string("bundleId")
        signedDate = try reader.date("signedDate")
        webOrderLineItemId = try reader.optionalString("webOrderLineItemId")
        subscriptionGroupIdentifier = try reader.optionalString("subscriptionGroupIdentifier")
        fields = payload
        try checkConsistency()
    }

    /// Refuses values no genuine transaction has and later steps cannot handle: a transaction id or original
    /// transaction id that is empty, overlong or outside a safe alphabet (see `TransactionIdentifier`), an
    /// `expiresDate` before the `purchaseDate`, a `purchaseDate` later than the `signedDate` by more
    /// than ``AppStoreClockSkew``, and a family-shared consumable (Apple shares non-consumables and subscriptions
    /// only).
    func checkConsistency() throws(AppStoreVerificationError) {
        guard TransactionIdentifier.isAcceptable(transactionId) else {
            throw AppStoreVerificationError(
                .payloadInconsistent,
                "the transaction's transactionId is not \(TransactionIdentifier.rule)")
        }
        guard TransactionIdentifier.isAcceptable(originalTransactionId) else {
            throw AppStoreVerificationError(
                .payloadInconsistent,
                "the transaction's originalTransactionId is not \(TransactionIdentifier.rule)")
        }
        if inAppOwnershipType == "FAMILY_SHARED", type == "Consumable" {
            throw AppStoreVerificationError(.payloadInconsistent, "a consumable cannot be family shared")
        }
        if let expiresDate, expiresDate < purchaseDate {
            throw AppStoreVerificationError(.payloadInconsistent, "the transaction expires before it was purchased")
        }
        let (latestPurchase, overflow) = signedDate.addingReportingOverflow(AppStoreClockSkew.milliseconds)
        if !overflow, purchaseDate > latestPurchase {
            throw AppStoreVerificationError(.payloadInconsistent, "the transaction was purchased after it was signed")
        }
    }
}
