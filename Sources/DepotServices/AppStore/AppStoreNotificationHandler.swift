import DepotCore
import DepotLedger
import DepotTrust
import Logging

/// Applies verified App Store Server Notifications V2, once per notificationUUID: the route
/// (`POST /v1/notifications/appstore`) and the history backfill feed it the same way.
///
/// Effects are applied before the notification is recorded, and each effect is idempotent, so a crash
/// between the two leads to a retry from Apple that applies the same effect again, never to a lost one.
/// A revocation fact applies only when its signedDate is newer than the last one applied to the
/// transaction: a REFUND retried after a REFUND_REVERSED (Apple's retries keep their signedDate), or the
/// reverse, changes nothing, and neither does a duplicate.
package struct AppStoreNotificationHandler: Sendable {
    /// What a notification led to.
    package struct Outcome: Sendable, Equatable {
        /// The notification's id.
        package var notificationUUID: String
        /// Whether it had been recorded before.
        package var duplicate: Bool
        /// What was done, for people (`revoked`, `reinstated`, `transaction-updated`, ...).
        package var effect: String
        /// For a CONSUMPTION_REQUEST: `DELIVERED` or an `UNDELIVERED_...` reason.
        package var deliveryStatus: String?
    }

    let verifier: AppStoreVerifier
    let context: DeliveryContext
    let appStoreServerAPI: AppStoreServerAPISettings?
    let refused: @Sendable (_ code: String) -> Void

    /// A handler verifying with `verifier`, applying through `context`; with `appStoreServerAPI`, a consumption
    /// request enqueues Send Consumption Information. `refused` is told the code of every refused notification.
    package init(
        verifier: AppStoreVerifier, context: DeliveryContext, appStoreServerAPI: AppStoreServerAPISettings?,
        refused: @escaping @Sendable (_ code: String) -> Void
    ) {
        self.verifier = verifier
        self.context = context
        self.appStoreServerAPI = appStoreServerAPI
        self.refused = refused
    }

    /// Verifies and applies one signed notification.
    package func handle(signedPayload: String) async throws(DeliveryError) -> Outcome {
        let notification: SignedNotification
        do {
            notification = try await verifier.verifyNotification(signedPayload)
        } catch {
            refused(error.code.description)
            throw .purchaseRefused(error.refusal)
        }
        let now = context.clock()
        let ledger = context.ledger
        let transaction = notification.transaction.map(\.purchase)
        // A transaction known to the ledger is judged by the type it was recorded under; one first seen in a
        // notification keeps its product's type in the catalog served now.
        var productType: ProductType?
        if let transaction { productType = try await context.judgedType(of: transaction) }
        let record = NotificationRecord(
            uuid: notification.notificationUUID, type: notification.notificationType, subtype: notification.subtype,
            transactionId: transaction?.id)
        var applied = Applied(effect: "recorded")
        if let transaction {
            do {
                applied = try await apply(notification, transaction, productType: productType, now: now)
            } catch .transactionConflict {
                // Not the purchase recorded under its id (the warning is logged): nothing is applied, and the
                // notification is recorded, so that Apple does not send it again.
                applied = Applied(effect: "transaction-conflict")
            }
        }
        let isNew = try await context.ledgerCall { () async throws(LedgerError) in
            try await ledger.recordNotification(record, enqueueConsumption: applied.enqueueConsumption, now: now)
        }
        context.logger.info(
            "notification",
            metadata: [
                "type": "\(notification.notificationType)", "uuid": "\(notification.notificationUUID)",
                "effect": "\(applied.effect)", "new": "\(isNew)",
            ])
        return Outcome(
            notificationUUID: notification.notificationUUID, duplicate: !isNew, effect: applied.effect,
            deliveryStatus: applied.deliveryStatus)
    }

    /// What applying a notification's transaction did.
    private struct Applied {
        /// For people: `revoked`, `reinstated`, `transaction-updated`, ...
        var effect: String
        /// For a CONSUMPTION_REQUEST: `DELIVERED` or an `UNDELIVERED_...` reason.
        var deliveryStatus: String? = nil
        /// Whether recording the notification enqueues Send Consumption Information.
        var enqueueConsumption = false
    }

    /// Applies the transaction a notification carries, by the notification's type.
    private func apply(
        _ notification: SignedNotification, _ transaction: PurchaseTransaction, productType: ProductType?, now: Int64
    ) async throws(DeliveryError) -> Applied {
        let ledger = context.ledger
        var applied = Applied(effect: "recorded")
        // What the other types record carries its refund judged as at a redeem.
        let settled = context.settled(transaction, type: productType)
        switch notification.notificationType {
        case "REFUND", "REVOKE", "REFUND_REVERSED":
            applied.effect = try await applyRevocation(notification, transaction, productType: productType, now: now)
        case "CONSUMPTION_REQUEST":
            // Apple asks whether the content was delivered before deciding a refund. With the App Store
            // Server API configured, recording the notification enqueues Send Consumption Information
            // (when the customer consented); the answer also carries the evidence for the operator.
            _ = try await context.ledgerCall(recording: transaction.id) { () async throws(LedgerError) in
                try await ledger.recordTransaction(settled, productType: productType, now: now)
            }
            guard let (_, evidence) = try await context.evidence(transactionId: transaction.id) else {
                throw .unknownTransaction
            }
            applied.effect = "consumption-evidence \(evidence.deliveryStatus) (\(evidence.rawValue))"
            applied.deliveryStatus = evidence.deliveryStatus
            if appStoreServerAPI?.sends(environment: transaction.environment) == true {
                applied.enqueueConsumption = true
                let consented = try await context.ledgerCall { () async throws(LedgerError) in
                    try await ledger.consumptionConsentedAt(transactionId: transaction.id)
                }
                applied.effect += consented == nil ? "; not sent: no customer consent recorded" : "; sent to the App Store"
            }
        case "REFUND_DECLINED":
            // Apple kept the purchase: nothing to revoke; the transaction as signed now is recorded.
            _ = try await context.ledgerCall(recording: transaction.id) { () async throws(LedgerError) in
                try await ledger.recordTransaction(settled, productType: productType, now: now)
            }
            applied.effect = "refund-declined"
        default:
            // ONE_TIME_CHARGE, RENEWAL_EXTENDED, DID_RENEW, EXPIRED, GRACE_PERIOD_EXPIRED, SUBSCRIBED, ...: the signed
            // transaction carries the period; recording it updates the subscription's periods.
            _ = try await context.ledgerCall(recording: transaction.id) { () async throws(LedgerError) in
                try await ledger.recordTransaction(settled, productType: productType, now: now)
            }
            applied.effect = "transaction-updated"
        }
        return applied
    }

    /// A REFUND, REVOKE or REFUND_REVERSED: the revocation fact, ordered by signedDate; returns the effect. A
    /// refund's type and percentage are judged by `RefundRules` (a prorated refund of some of a consumable's units
    /// revokes those units only); a REVOKE that names no type is a family sharing revoked; a REFUND_REVERSED clears
    /// whatever the refund took back, unless the transaction it carries is still refunded in part (one of two
    /// partial refunds reversed): then what it still says is refunded stays revoked, as a refund would set it.
    private func applyRevocation(
        _ notification: SignedNotification, _ transaction: PurchaseTransaction, productType: ProductType?, now: Int64
    ) async throws(DeliveryError) -> String {
        let ledger = context.ledger
        let stillRefunded = transaction.revocation != nil || transaction.revocationDate != nil
        let reversed = notification.notificationType == "REFUND_REVERSED" && !stillRefunded
        var settled: PurchaseTransaction?
        if !reversed {
            var presented = transaction
            let at = transaction.revocationDate ?? notification.signedDate
            presented.revocationDate = at
            if presented.revocation == nil {
                presented.revocation = PurchaseRevocation(
                    kind: notification.notificationType == "REVOKE" ? .familyRevoke : .refundFull, at: at,
                    revokedQuantity: transaction.quantity)
            }
            settled = context.settled(presented, type: productType)
        }
        // The transaction is recorded without its revocation: only `setRevocation`, which orders facts by signedDate,
        // decides it.
        var unrevoked = transaction
        unrevoked.revocationDate = nil
        unrevoked.revocation = nil
        let stored = try await context.ledgerCall(recording: transaction.id) { () async throws(LedgerError) in
            _ = try await ledger.recordTransaction(unrevoked, productType: productType, now: now)
            _ = try await ledger.setRevocation(
                transactionId: transaction.id, revokedAt: settled?.revocationDate, revocation: settled?.revocation,
                reason: notification.notificationType, signedAt: notification.signedDate, now: now)
            return try await ledger.transaction(id: transaction.id)
        }
        if stored?.transaction.isRevoked == true {
            if reversed {
                context.revocations.revoke(transaction.id)
                return "stale-ignored"
            }
            await context.purchaseRevoked(transaction.id)
            return "revoked"
        }
        context.revocations.reinstate(transaction.id)
        if reversed { return "reinstated" }
        guard let settled, let recorded = stored?.transaction.revocation, recorded == settled.revocation else {
            return "stale-ignored"
        }
        // Part of it refunded: the units that remain still entitle, and their grants keep working.
        return "partially-revoked \(recorded.revokedQuantity) of \(settled.quantity)"
    }
}
