import DepotCore
import DepotLedger

extension DeliveryContext {
    /// Delivery evidence from the latest delivery of each content: confirmed, or how much of its bundle was served.
    package func evidence(of stored: LedgerTransaction, statuses: [DeliveryStatus]) -> DeliveryEvidence {
        var latest: [String: DeliveryStatus] = [:]
        for status in statuses {
            if let known = latest[status.delivery.contentId], known.confirmedAt != nil || known.lastActivityAt > status.lastActivityAt {
                continue
            }
            latest[status.delivery.contentId] = status
        }
        return DeliveryEvidence.assess(
            latest.values.map { status in
                DeliveryEvidence.Delivery(
                    confirmed: status.confirmedAt != nil || stored.state == .finished, bytesCovered: status.bytesCovered,
                    size: bundleSize(of: status.delivery) ?? Int64.max)
            })
    }

    /// The delivery evidence of a recorded transaction now; nil when it was never recorded.
    package func evidence(transactionId: String) async throws(DeliveryError) -> (LedgerTransaction, DeliveryEvidence)? {
        let found = try await ledgerCall { () async throws(LedgerError) -> (LedgerTransaction, [DeliveryStatus])? in
            guard let stored = try await ledger.transaction(id: transactionId) else { return nil }
            return (stored, try await ledger.deliveries(transactionId: transactionId))
        }
        return found.map { ($0.0, evidence(of: $0.0, statuses: $0.1)) }
    }

    /// The size of the bundle a delivery recorded, when the catalog still knows it.
    package func bundleSize(of delivery: PlannedDelivery) -> Int64? {
        catalog.bundleSize(digest: delivery.digest)
    }
}
