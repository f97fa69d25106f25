import DepotAppStore
import DepotCore
import DepotLedger

/// Why no Send Consumption Information body could be made.
package enum ConsumptionReportError: Error, Sendable, Equatable {
    /// The ledger could not be read, or the transaction is unknown.
    case delivery(DeliveryError)
    /// The evidence gave a body Apple's rules refuse (a defect: the evidence only gives statuses Apple accepts).
    case outsideApplesRules(deliveryStatus: String)
}

extension DeliveryContext {
    /// The Send Consumption Information body for a transaction from Depot's delivery evidence now, or nil when
    /// the customer's consent is not (or no longer) recorded.
    ///
    /// `deliveryStatus` is `DELIVERED` when the app confirmed delivery or every bundle was served in full, else
    /// `UNDELIVERED_OTHER`; `consumptionPercentage` is 0 for content not delivered (Apple requires it), and left
    /// out otherwise (Depot cannot see how much of delivered content was used) and for auto-renewable
    /// subscriptions (Apple takes it for the other types only).
    package func consumptionInformation(
        transactionId: String, sampleContentProvided: Bool
    ) async throws(ConsumptionReportError) -> ConsumptionInformation? {
        let found: (LedgerTransaction, DeliveryEvidence)?
        do {
            let consented = try await ledgerCall { () async throws(LedgerError) in
                try await ledger.consumptionConsentedAt(transactionId: transactionId)
            }
            guard consented != nil else { return nil }
            found = try await evidence(transactionId: transactionId)
        } catch {
            throw .delivery(error)
        }
        guard let (stored, evidence) = found else { throw .delivery(.unknownTransaction) }
        let delivered = evidence.deliveryStatus == "DELIVERED"
        // Judged by the type the transaction was redeemed under.
        let isSubscription = stored.judgedType(in: catalog) == .autoRenewable
        guard
            let information = ConsumptionInformation(
                deliveryStatus: evidence.deliveryStatus, sampleContentProvided: sampleContentProvided,
                consumptionPercentage: delivered || isSubscription ? nil : 0)
        else { throw .outsideApplesRules(deliveryStatus: evidence.deliveryStatus) }
        return information
    }
}
