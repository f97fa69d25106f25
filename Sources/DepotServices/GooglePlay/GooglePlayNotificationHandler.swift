import DepotCore
import DepotGooglePlay
import DepotLedger
import DepotTrust
import Logging

/// Acts on Google Play's real-time developer notifications without trusting what they say: a cancelled
/// one-time purchase is revoked only when the Developer API holds it cancelled, and a voided purchase (or a
/// revoked subscription) only when `purchases.voidedpurchases.list` lists it, through the same poll that runs
/// on a timer. Everything else is acknowledged and left alone; a notification repeated by Pub/Sub changes
/// nothing twice.
package struct GooglePlayNotificationHandler: Sendable {
    /// What a notification led to.
    package enum Outcome: String, Sendable, Equatable {
        /// Play Console's test notification.
        case test
        /// A purchase Depot knows was revoked.
        case revoked
        /// A pending refund review of a purchase Depot recorded: its answer, from the delivery evidence, is in the
        /// outbox (`orders.reviewrefund`).
        case refundReviewEnqueued = "refund-review-enqueued"
        /// Google holds nothing that changes what Depot recorded.
        case unchanged
        /// Google does not know the purchase, or Depot never recorded it.
        case unknownPurchase = "unknown-purchase"
        /// Nothing Depot acts on: another app's notification on a shared topic, or a kind of event it does not
        /// follow. Answered 200 all the same, or Pub/Sub would deliver it again for days.
        case ignored
    }

    /// Why a notification was not handled.
    package enum Failure: Error, Sendable {
        /// The Developer API could not be asked now (Pub/Sub delivers the notification again later).
        case googleUnavailable(String)
        /// The ledger could not be read or written.
        case ledger(LedgerError)
    }

    let packageName: String
    let ledger: any Ledger
    let client: GooglePlayDeveloperAPIClient
    let voided: VoidedPurchasePoll
    let clock: @Sendable () -> Int64
    let logger: Logger
    let onRevoked: @Sendable (String) async -> Void

    /// A handler for the app `packageName`, asking `client`, revoking in `ledger` (and through `voided`).
    package init(
        packageName: String, ledger: any Ledger, client: GooglePlayDeveloperAPIClient, voided: VoidedPurchasePoll,
        clock: @escaping @Sendable () -> Int64, logger: Logger, onRevoked: @escaping @Sendable (String) async -> Void
    ) {
        self.packageName = packageName
        self.ledger = ledger
        self.client = client
        self.voided = voided
        self.clock = clock
        self.logger = logger
        self.onRevoked = onRevoked
    }

    /// Subscription notification types that mean the purchase was taken back (`SUBSCRIPTION_REVOKED`).
    static let subscriptionRevoked = 12

    /// Handles one notification.
    package func handle(_ notification: GooglePlayDeveloperNotification) async throws(Failure) -> Outcome {
        guard notification.packageName == packageName else {
            logger.notice("a Google Play notification of another app ignored", metadata: ["package": "\(notification.packageName)"])
            return .ignored
        }
        switch notification.event {
        case .test:
            return .test
        case .other:
            return .ignored
        case .oneTimeProduct(_, let token, let productId):
            return try await checkOneTime(token: token, productId: productId)
        case .voidedPurchase:
            return try await pollVoided(since: notification.eventTimeMillis)
        case .pendingRefundReview(let token, let orderId):
            return try await recordRefundReview(token: token, orderId: orderId)
        case .subscription(let type, _, _):
            // Renewals and expiries need nothing here: a subscription's period is asked of Google at each redeem
            // or restore, when entitlement is worked out. A revocation is a voided purchase, which the voided list
            // confirms.
            guard type == Self.subscriptionRevoked else { return .unchanged }
            return try await pollVoided(since: notification.eventTimeMillis)
        }
    }

    /// Asks Google for the one-time purchase; revokes it when Google holds it cancelled.
    private func checkOneTime(token: String, productId: String) async throws(Failure) -> Outcome {
        let held: GooglePlayProductPurchase
        do {
            held = try await client.productPurchase(productId: productId, purchaseToken: token)
        } catch {
            switch error.kind {
            // Google does not know it (or no longer: 410), or it cannot even be asked about (a token no path takes).
            case .google(let status, _, _) where status == 400 || status == 404 || status == 410: return .unknownPurchase
            case .configuration: return .unknownPurchase
            default: throw .googleUnavailable(error.description)
            }
        }
        guard held.purchaseState == 1 else { return .unchanged }
        var candidates: [String] = []
        if let orderId = held.orderId, !orderId.isEmpty { candidates.append(orderId) }
        candidates.append(GooglePlayVerifier.tokenTransactionId(token))
        do {
            for id in candidates {
                guard let stored = try await ledger.transaction(id: id), stored.transaction.store == .googlePlay else { continue }
                let now = clock()
                guard
                    try await ledger.revokeIfNotRevoked(
                        transactionId: id, revokedAt: now * 1000, reason: "Google Play holds the purchase cancelled", now: now)
                else { return .unchanged }
                await onRevoked(id)
                logger.info("Google Play purchase revoked on a notification", metadata: ["transaction": "\(id)"])
                return .revoked
            }
        } catch {
            throw .ledger(error)
        }
        return .unknownPurchase
    }

    /// Records a pending refund review of a purchase Depot recorded (by its order id, the transaction's id), which
    /// enqueues its answer. What the notification says is only a request for evidence: it changes no entitlement.
    private func recordRefundReview(token: String, orderId: String) async throws(Failure) -> Outcome {
        // Depot's transaction ids follow its identifier rule; an order id that does not is none Depot recorded.
        guard Identifier.isAcceptable(orderId) else { return .unknownPurchase }
        do {
            guard let stored = try await ledger.transaction(id: orderId), stored.transaction.store == .googlePlay else {
                logger.notice("a refund review of an order Depot never recorded", metadata: ["order": "\(orderId)"])
                return .unknownPurchase
            }
            guard try await ledger.recordRefundReview(transactionId: orderId, pendingRefundToken: token, now: clock()) else {
                return .unchanged
            }
        } catch {
            throw .ledger(error)
        }
        logger.info("Google Play refund review enqueued", metadata: ["transaction": "\(orderId)"])
        return .refundReviewEnqueued
    }

    /// Polls the voided purchases from an hour before the event until now.
    private func pollVoided(since eventTimeMillis: Int64?) async throws(Failure) -> Outcome {
        let now = clock()
        let eventSeconds = eventTimeMillis.map { $0 / 1000 } ?? now
        let from = min(now, eventSeconds) - 3_600
        do {
            return try await voided.poll(from: from, to: now) > 0 ? .revoked : .unchanged
        } catch let error as LedgerError {
            throw .ledger(error)
        } catch {
            throw .googleUnavailable("\(error)")
        }
    }
}
