/// A verified App Store Server Notification V2 (the payload of `signedPayload`).
///
/// Reads `notificationType`, `notificationUUID`, `signedDate` (required), `subtype`, `version`, and the app's
/// `bundleId` and `environment` from `data` (or, for notifications without `data`, from `summary` or
/// `externalPurchaseToken`). `data.signedTransactionInfo` and `data.signedRenewalInfo`, when present, are
/// verified as signed data of their own and decoded. Types and subtypes stay strings (`REFUND`, `REVOKE`,
/// `DID_RENEW`, ... and values added later); the whole payload stays in ``fields``.
package struct SignedNotification: Sendable, Equatable {
    /// What happened: `REFUND`, `REVOKE`, `DID_RENEW`, `EXPIRED`, `TEST`, ...
    package var notificationType: String
    /// Detail of the type, e.g. `AUTO_RENEW_DISABLED`, `VOLUNTARY`.
    package var subtype: String?
    /// Unique per notification; Apple may send the same notification again with the same UUID.
    package var notificationUUID: String
    /// When the App Store signed the notification, in milliseconds since 1970.
    package var signedDate: Int64
    /// The notification format version, `2.0`.
    package var version: String?
    /// The app's bundle id.
    package var bundleId: String
    /// `Production`, `Sandbox`, ... as for transactions.
    package var environment: String
    /// The app's App Store id (production only).
    package var appAppleId: Int64?
    /// The subscription status in `data.status` (1 active, 2 expired, ...).
    package var status: Int?
    /// The verified `data.signedTransactionInfo`.
    package var transaction: SignedTransaction?
    /// The verified `data.signedRenewalInfo`.
    package var renewalInfo: SignedRenewalInfo?
    /// The whole payload, unknown keys included (nested signed data left as the JWS strings they came as).
    package var fields: [String: JSONValue]

    /// The nested signed data, still to verify.
    struct Nested {
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
    }

    /// Decodes the notification's own fields; `transaction` and `renewalInfo` are left nil for the caller to
    /// fill in from ``Nested`` once verified.
    init(payload: [String: JSONValue]) throws(AppStoreVerificationError) {
        let reader = PayloadFields(object: payload, kind: "notification")
        notificationType = try reader.string("notificationType")
        subtype = try reader.optionalString("subtype")
        notificationUUID = try reader.string("notificationUUID")
        signedDate = try reader.date("signedDate")
        version = try reader.optionalString("version")
        if let data = try reader.optionalObject("data") {
            bundleId = try data.string("bundleId")
            environment = try data.string("environment")
            appAppleId = try data.optionalInt64("appAppleId")
            status = try data.optionalInt("status")
        } else if let summary = try reader.optionalObject("summary") {
            bundleId = try summary.string("bundleId")
            environment = try summary.string("environment")
            appAppleId = try summary.optionalInt64("appAppleId")
        } else if let token = try reader.optionalObject("externalPurchaseToken") {
            bundleId = try token.string("bundleId")
            appAppleId = try token.optionalInt64("appAppleId")
            // As Apple's library does: sandbox external purchase ids carry a SANDBOX prefix.
            let purchaseId = try token.optionalString("externalPurchaseId") ?? ""
            environment = purchaseId.hasPrefix("SANDBOX") ? AppStoreEnvironment.sandbox : AppStoreEnvironment.production
        } else {
            throw AppStoreVerificationError(.payloadMalformed, "the notification has no data, summary or token")
        }
        fields = payload
    }

    /// The nested JWS strings of `data`, if any.
    static func nested(in payload: [String: JSONValue]) throws(AppStoreVerificationError) -> Nested {
        let reader = PayloadFields(object: payload, kind: "notification")
        guard let data = try reader.optionalObject("data") else { return Nested() }
        return Nested(
            signedTransactionInfo: try data.optionalString("signedTransactionInfo"),
            signedRenewalInfo: try data.optionalString("signedRenewalInfo"))
    }
}
