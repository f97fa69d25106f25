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
    /// event per delivered content, content of which nothing was served is `APPROVE` with a consumption of 0, and
    /// content served in part is `NEUTRAL` with the usage of what did arrive in full. Without it,
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
        // The latest delivery of each content, as the evidence judges them.
        var latest: [String: DeliveryStatus] = [:]
        for status in deliveries {
            if let known = latest[status.delivery.contentId], known.confirmedAt != nil || known.lastActivityAt > status.lastActivityAt {
                continue
            }
            latest[status.delivery.contentId] = status
        }
        let events = latest.values.sorted { $0.delivery.contentId < $1.delivery.contentId }.compactMap {
            status -> GooglePlayRefundReview.UsageEvent? in
            let delivery = status.delivery
            if let confirmedAt = status.confirmedAt {
                return .init(
                    time: confirmedAt, description: Self.usageDescription(delivery, "confirmed by the app"),
                    obfuscatedAccountId: stored.transaction.appAccountToken)
            }
            guard let size = bundleSize(of: delivery), status.bytesCovered >= size else { return nil }
            return .init(
                time: status.lastActivityAt,
                description: Self.usageDescription(delivery, "every one of its \(size) bytes served, not confirmed by the app"),
                obfuscatedAccountId: stored.transaction.appAccountToken)
        }
        if evidence(of: stored, statuses: deliveries).deliveryStatus == "DELIVERED" {
            return GooglePlayRefundReview(
                pendingRefundToken: token, sampleContentProvided: sampleContentProvided, refundPreference: .decline,
                consumptionUsageEvents: events.isEmpty ? nil : events)
        }
        // Nothing served at all: nothing reached the customer. Some of it: the evidence speaks for neither.
        guard deliveries.allSatisfy({ $0.bytesCovered == 0 && $0.confirmedAt == nil }) else {
            return GooglePlayRefundReview(
                pendingRefundToken: token, sampleContentProvided: sampleContentProvided, refundPreference: .neutral,
                consumptionUsageEvents: events.isEmpty ? nil : events)
        }
        return GooglePlayRefundReview(
            pendingRefundToken: token, sampleContentProvided: sampleContentProvided, refundPreference: .approve,
            consumptionPercentageMilliunits: 0)
    }

    private static func usageDescription(_ delivery: PlannedDelivery, _ how: String) -> String {
        "content \(delivery.contentId) version \(delivery.version) (bundle \(delivery.digest)) delivered: \(how)"
    }
}
