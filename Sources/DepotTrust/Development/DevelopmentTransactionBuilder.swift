import Foundation

/// Builds the payload of a development transaction, shaped like the App Store's `JWSTransactionDecodedPayload`.
///
/// Defaults: a random 16-digit `transactionId`, `originalTransactionId` equal to it, `purchaseDate` and
/// `signedDate` now, quantity 1, environment `Sandbox`, ownership `PURCHASED`; auto-renewable subscriptions
/// get a one-month `expiresDate`, a `webOrderLineItemId` and a subscription group. Sign the payload with
/// ``DevelopmentCertificateAuthority/sign(payload:)``.
package struct DevelopmentTransactionBuilder: Sendable {
    /// The App Store `type` strings.
    package enum ProductType {
        /// `Consumable`.
        package static let consumable = "Consumable"
        /// `Non-Consumable`.
        package static let nonConsumable = "Non-Consumable"
        /// `Auto-Renewable Subscription`.
        package static let autoRenewable = "Auto-Renewable Subscription"
        /// `Non-Renewing Subscription`.
        package static let nonRenewing = "Non-Renewing Subscription"

        /// The App Store type for a Depot product type (`consumable`, `nonConsumable`, `autoRenewable`,
        /// `nonRenewing`, `freeSubscription`); nil for an unknown one.
        ///
        /// StoreKit 2 has no free-subscription type; a free subscription is bought once and never expires,
        /// so it is signed as a non-consumable.
        package static func forDepotType(_ type: String) -> String? {
            switch type {
            case "consumable": consumable
            case "nonConsumable", "freeSubscription": nonConsumable
            case "autoRenewable": autoRenewable
            case "nonRenewing": nonRenewing
            default: nil
            }
        }
    }

    /// The app's bundle id.
    package var bundleId: String
    /// The product bought.
    package var productId: String
    /// An App Store `type` string, see ``ProductType``.
    package var type: String
    /// The transaction's id; random by default.
    package var transactionId: String
    /// Defaults to ``transactionId``.
    package var originalTransactionId: String?
    /// Milliseconds since 1970.
    package var purchaseDate: Int64
    /// Milliseconds since 1970.
    package var signedDate: Int64
    /// Milliseconds since 1970; for auto-renewable subscriptions defaults to 30 days after the purchase.
    package var expiresDate: Int64?
    /// Set to sign a refunded or revoked transaction; milliseconds since 1970.
    package var revocationDate: Int64?
    /// 0 other, 1 an app issue.
    package var revocationReason: Int?
    /// `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`, written when set.
    package var revocationType: String?
    /// Milliunits of the whole quantity refunded (0-100000), written when set.
    package var revocationPercentage: Int?
    /// How many consumables were bought.
    package var quantity: Int = 1
    /// A UUID linking the purchase to a publisher account.
    package var appAccountToken: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    package var inAppOwnershipType: String = "PURCHASED"
    /// The App Store environment written into the payload.
    package var environment: String = AppStoreEnvironment.sandbox
    /// Set by default for auto-renewable subscriptions.
    package var webOrderLineItemId: String?
    /// Set by default for auto-renewable subscriptions.
    package var subscriptionGroupIdentifier: String?
    /// Extra fields, written over the ones above (to test unknown keys, for instance).
    package var extraFields: [String: JSONValue] = [:]

    /// A transaction of `productId` bought `now`.
    package init(bundleId: String, productId: String, type: String, now: Date = Date()) {
        self.bundleId = bundleId
        self.productId = productId
        self.type = type
        self.transactionId = Self.randomTransactionId()
        let nowMilliseconds = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        self.purchaseDate = nowMilliseconds
        self.signedDate = nowMilliseconds
        if type == ProductType.autoRenewable {
            self.expiresDate = nowMilliseconds + 30 * 86_400_000
            self.webOrderLineItemId = Self.randomTransactionId()
            self.subscriptionGroupIdentifier = "depot.development"
        }
    }

    /// The payload to sign.
    package func payload() -> [String: JSONValue] {
        var payload: [String: JSONValue] = [
            "transactionId": .string(transactionId),
            "originalTransactionId": .string(originalTransactionId ?? transactionId),
            "bundleId": .string(bundleId),
            "productId": .string(productId),
            "type": .string(type),
            "purchaseDate": .integer(purchaseDate),
            "originalPurchaseDate": .integer(purchaseDate),
            "signedDate": .integer(signedDate),
            "quantity": .integer(Int64(quantity)),
            "inAppOwnershipType": .string(inAppOwnershipType),
            "environment": .string(environment),
            "transactionReason": "PURCHASE",
            "storefront": "USA",
            "storefrontId": "143441",
        ]
        if let expiresDate { payload["expiresDate"] = .integer(expiresDate) }
        if let revocationDate { payload["revocationDate"] = .integer(revocationDate) }
        if let revocationReason { payload["revocationReason"] = .integer(Int64(revocationReason)) }
        if let revocationType { payload["revocationType"] = .string(revocationType) }
        if let revocationPercentage { payload["revocationPercentage"] = .integer(Int64(revocationPercentage)) }
        if let appAccountToken { payload["appAccountToken"] = .string(appAccountToken) }
        if let webOrderLineItemId { payload["webOrderLineItemId"] = .string(webOrderLineItemId) }
        if let subscriptionGroupIdentifier {
            payload["subscriptionGroupIdentifier"] = .string(subscriptionGroupIdentifier)
        }
        payload.merge(extraFields) { _, extra in extra }
        return payload
    }

    /// A numeric id shaped like the App Store's: 16 digits starting with 2.
    static func randomTransactionId() -> String {
        "2" + String(UInt64.random(in: 0..<1_000_000_000_000_000)).leftPadded(to: 15)
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
