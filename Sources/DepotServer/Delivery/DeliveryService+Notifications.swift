import DepotTelemetry
import DepotServices
import DepotAPI
import DepotCore
import DepotLedger
import DepotTrust
import Logging

extension DeliveryService {
    /// Applies a verified App Store Server Notification V2, once per notificationUUID.
    ///
    /// Effects are applied before the notification is recorded, and each effect is idempotent, so a crash
    /// between the two leads to a retry from Apple that applies the same effect again, never to a lost one.
    /// A revocation fact applies only when its signedDate is newer than the last one applied to the
    /// transaction: a REFUND retried after a REFUND_REVERSED (Apple's retries keep their signedDate), or the
    /// reverse, changes nothing, and neither does a duplicate.
    func handleNotification(_ request: NotificationRequest) async throws(DepotError) -> NotificationOutcome {
        let notification: SignedNotification
        do {
            notification = try await verifier.verifyNotification(request.signedPayload)
        } catch {
            metrics?.verificationFailed(code: error.code.description)
            throw Self.depotError(error)
        }
        let now = clock()
        let transaction = notification.transaction.map(\.purchase)
        // A transaction first seen in a notification keeps its product's type in the catalog served now.
        let productType = transaction.flatMap { catalog.product(id: $0.productId)?.type }
        let record = NotificationRecord(
            uuid: notification.notificationUUID, type: notification.notificationType, subtype: notification.subtype,
            transactionId: transaction?.id)
        var effect = "recorded"
        var deliveryStatus: String?
        var enqueueConsumption = false
        if let transaction {
            switch notification.notificationType {
            case "REFUND", "REVOKE", "REFUND_REVERSED":
                let reversed = notification.notificationType == "REFUND_REVERSED"
                let revokedAt = reversed ? nil : transaction.revocationDate ?? notification.signedDate
                // The transaction is recorded without its revocation: only `setRevocation`, which orders facts
                // by signedDate, decides it.
                var unrevoked = transaction
                unrevoked.revocationDate = nil
                let stored = try await ledgerCall { () async throws(LedgerError) in
                    _ = try await ledger.recordTransaction(unrevoked, productType: productType, now: now)
                    _ = try await ledger.setRevocation(
                        transactionId: transaction.id, revokedAt: revokedAt, reason: notification.notificationType,
                        signedAt: notification.signedDate, now: now)
                    return try await ledger.transaction(id: transaction.id)
                }
                if stored?.transaction.isRevoked == true {
                    effect = reversed ? "stale-ignored" : "revoked"
                    if reversed {
                        revocations.revoke(transaction.id)
                    } else {
                        await purchaseRevoked(transaction.id)
                    }
                } else {
                    revocations.reinstate(transaction.id)
                    effect = reversed ? "reinstated" : "stale-ignored"
                }
            case "CONSUMPTION_REQUEST":
                // Apple asks whether the content was delivered before deciding a refund. With the App Store
                // Server API configured, recording the notification enqueues Send Consumption Information
                // (when the customer consented); the answer also carries the evidence for the operator.
                _ = try await ledgerCall { () async throws(LedgerError) in
                    try await ledger.recordTransaction(transaction, productType: productType, now: now)
                }
                let report = try await report(transactionId: transaction.id)
                effect = "consumption-evidence \(report.deliveryStatus) (\(report.evidence))"
                deliveryStatus = report.deliveryStatus
                if appStoreServerAPI?.sends(environment: transaction.environment) == true {
                    enqueueConsumption = true
                    let consented = try await ledgerCall { () async throws(LedgerError) in
                        try await ledger.consumptionConsentedAt(transactionId: transaction.id)
                    }
                    effect += consented == nil ? "; not sent: no customer consent recorded" : "; sent to the App Store"
                }
            case "REFUND_DECLINED":
                // Apple kept the purchase: nothing to revoke; the transaction as signed now is recorded.
                _ = try await ledgerCall { () async throws(LedgerError) in
                    try await ledger.recordTransaction(transaction, productType: productType, now: now)
                }
                effect = "refund-declined"
            default:
                // ONE_TIME_CHARGE, RENEWAL_EXTENDED, DID_RENEW, EXPIRED, GRACE_PERIOD_EXPIRED, SUBSCRIBED, ...: the signed transaction carries the
                // period; recording it updates the subscription's periods.
                _ = try await ledgerCall { () async throws(LedgerError) in
                    try await ledger.recordTransaction(transaction, productType: productType, now: now)
                }
                effect = "transaction-updated"
            }
        }
        let isNew = try await ledgerCall { () async throws(LedgerError) in
            try await ledger.recordNotification(record, enqueueConsumption: enqueueConsumption, now: now)
        }
        logger.info(
            "notification",
            metadata: [
                "type": "\(notification.notificationType)", "uuid": "\(notification.notificationUUID)",
                "effect": "\(effect)", "new": "\(isNew)",
            ])
        return NotificationOutcome(
            notificationUUID: notification.notificationUUID, duplicate: !isNew, effect: effect, deliveryStatus: deliveryStatus)
    }
}

/// The answer to a notification: 200 with what was done, so Apple stops retrying.
struct NotificationOutcome: Encodable, Sendable {
    var notificationUUID: String
    var duplicate: Bool
    var effect: String
    /// For a CONSUMPTION_REQUEST: `DELIVERED` or an `UNDELIVERED_...` reason.
    var deliveryStatus: String?
}
