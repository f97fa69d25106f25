import DepotCore
import DepotGooglePlay
import DepotLedger

extension DeliveryContext {
    /// The `orders.reviewrefund` answer to a transaction's pending refund review from Depot's delivery evidence
    /// now; nil when no review of it was recorded.
    ///
    /// Under the consent rule of Apple's consumption answers: usage (which content arrived, when) is shared only
    /// when the customer's consent is recorded (`POST /v1/transactions/{id}/consent`). With it, content that
    /// reached the device (the app confirmed it, or every bundle was served in full) is `DECLINE` with one usage
    /// event per delivered content, and content that did not is `APPROVE` with a consumption of 0. Without it,
    /// the answer is `NEUTRAL` and carries no usage: Google decides alone, as it would without an answer, but
    /// knows the developer heard it.
    package func refundReview(
        transactionId: String, sampleContentProvided: Bool
    ) async throws(DeliveryError) -> GooglePlayRefundReview? {
        let found = try await ledgerCall { () async throws(LedgerError) -> (token: String, consented: Bool)? in
            guard let token = try await ledger.pendingRefundToken(transactionId: transactionId) else { return nil }
            return (token, try await ledger.consumptionConsentedAt(transactionId: transactionId) != nil)
        }
        guard let (token, consented) = found else { return nil }
        guard consented else {
            return GooglePlayRefundReview(
                pendingRefundToken: token, sampleContentProvided: sampleContentProvided, refundPreference: .neutral)
        }
        let statuses = try await ledgerCall { () async throws(LedgerError) -> (LedgerTransaction, [DeliveryStatus])? in
            guard let stored = try await ledger.transaction(id: transactionId) else { return nil }
            return (stored, try await ledger.deliveries(transactionId: transactionId))
        }
        guard let (stored, deliveries) = statuses else { throw .unknownTransaction }
        guard evidence(of: stored, statuses: deliveries).deliveryStatus == "DELIVERED" else {
            return GooglePlayRefundReview(
                pendingRefundToken: token, sampleContentProvided: sampleContentProvided, refundPreference: .approve,
                consumptionPercentageMilliunits: 0)
        }
        let events = deliveries.compactMap { status -> GooglePlayRefundReview.UsageEvent? in
            let delivery = status.delivery
            let how: String
            if let confirmedAt = status.confirmedAt {
                how = "confirmed by the app"
                return .init(
                    time: confirmedAt, description: Self.usageDescription(delivery, how),
                    obfuscatedAccountId: stored.transaction.appAccountToken)
            }
            guard let size = bundleSize(of: delivery), status.bytesCovered >= size else { return nil }
            how = "every one of its \(size) bytes served, not confirmed by the app"
            return .init(
                time: status.lastActivityAt, description: Self.usageDescription(delivery, how),
                obfuscatedAccountId: stored.transaction.appAccountToken)
        }
        return GooglePlayRefundReview(
            pendingRefundToken: token, sampleContentProvided: sampleContentProvided, refundPreference: .decline,
            consumptionUsageEvents: events.isEmpty ? nil : events)
    }

    private static func usageDescription(_ delivery: PlannedDelivery, _ how: String) -> String {
        "content \(delivery.contentId) version \(delivery.version) (bundle \(delivery.digest)) delivered: \(how)"
    }
}
