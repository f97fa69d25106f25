import Foundation

/// Builds the payload of a development App Store Server Notification V2 (`ResponseBodyV2DecodedPayload`).
///
/// Writes `notificationType`, `subtype` (when set), `notificationUUID` (random by default), `version` `2.0`,
/// `signedDate` (now by default) and `data` with `bundleId`, `environment`, `signedTransactionInfo` and
/// `signedRenewalInfo` (when set). Sign it with ``DevelopmentCertificateAuthority/sign(payload:)``.
package struct DevelopmentNotificationBuilder: Sendable {
    /// `REFUND`, `REVOKE`, `DID_RENEW`, `TEST`, ...
    package var notificationType: String
    /// Detail of the type, e.g. `VOLUNTARY`.
    package var subtype: String?
    /// The app's bundle id, in `data`.
    package var bundleId: String
    /// The App Store environment written into the payload.
    package var environment: String = AppStoreEnvironment.sandbox
    /// A signed transaction (JWS), e.g. from ``DevelopmentTransactionBuilder``.
    package var signedTransactionInfo: String?
    /// Signed renewal info (JWS), e.g. from ``DevelopmentRenewalInfoBuilder``.
    package var signedRenewalInfo: String?
    /// Unique per notification; random by default.
    package var notificationUUID: String = UUID().uuidString.lowercased()
    /// Milliseconds since 1970.
    package var signedDate: Int64

    /// A notification of `notificationType` (e.g. `REFUND`) signed `now`.
    package init(notificationType: String, subtype: String? = nil, bundleId: String, now: Date = Date()) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.bundleId = bundleId
        self.signedDate = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The payload to sign.
    package func payload() -> [String: JSONValue] {
        var data: [String: JSONValue] = ["bundleId": .string(bundleId), "environment": .string(environment)]
        if let signedTransactionInfo { data["signedTransactionInfo"] = .string(signedTransactionInfo) }
        if let signedRenewalInfo { data["signedRenewalInfo"] = .string(signedRenewalInfo) }
        var payload: [String: JSONValue] = [
            "notificationType": .string(notificationType),
            "notificationUUID": .string(notificationUUID),
            "version": "2.0",
            "signedDate": .integer(signedDate),
            "data": .object(data),
        ]
        if let subtype { payload["subtype"] = .string(subtype) }
        return payload
    }
}

/// Builds the payload of development renewal info (`JWSRenewalInfoDecodedPayload`) for an auto-renewable
/// subscription: auto-renew on, renewing into the same product at `renewalDate`.
package struct DevelopmentRenewalInfoBuilder: Sendable {
    /// The subscription's original transaction.
    package var originalTransactionId: String
    /// The product the subscription currently is.
    package var productId: String
    /// The product that renews next; defaults to ``productId``.
    package var autoRenewProductId: String?
    /// 1 renews, 0 turned off.
    package var autoRenewStatus: Int = 1
    /// The App Store environment written into the payload.
    package var environment: String = AppStoreEnvironment.sandbox
    /// Milliseconds since 1970.
    package var renewalDate: Int64?
    /// Milliseconds since 1970.
    package var signedDate: Int64

    /// Renewal info for the subscription that started with `originalTransactionId`, signed `now`.
    package init(originalTransactionId: String, productId: String, now: Date = Date()) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.signedDate = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The payload to sign.
    package func payload() -> [String: JSONValue] {
        var payload: [String: JSONValue] = [
            "originalTransactionId": .string(originalTransactionId),
            "productId": .string(productId),
            "autoRenewProductId": .string(autoRenewProductId ?? productId),
            "autoRenewStatus": .integer(Int64(autoRenewStatus)),
            "environment": .string(environment),
            "signedDate": .integer(signedDate),
        ]
        if let renewalDate { payload["renewalDate"] = .integer(renewalDate) }
        return payload
    }
}
