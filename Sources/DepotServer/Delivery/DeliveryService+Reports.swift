import DepotAPI
import DepotCore
import DepotLedger
import DepotServices
import DepotTrust

extension DeliveryService {
    /// Transactions over the irregular-activity thresholds within the configured window, one page.
    func irregular(_ page: PageRequest<Int>) async throws(DepotError) -> IrregularBody {
        let offset = page.after ?? 0
        let flagged = try await ledgerCall { () async throws(LedgerError) in
            try await ledger.irregularTransactions(
                since: clock() - irregular.windowSeconds, maxAccountTokens: irregular.maxAccountTokens,
                maxClientAddresses: irregular.maxClientAddresses, offset: offset, limit: page.limit + 1)
        }
        return IrregularBody(
            windowSeconds: irregular.windowSeconds,
            transactions: flagged.prefix(page.limit).map {
                .init(
                    transactionId: $0.transactionId, appAccountTokens: $0.activity.appAccountTokens,
                    clientAddresses: $0.activity.clientAddresses, lastAttemptAt: UTCTimestamp.format($0.lastAttemptAt))
            },
            nextCursor: flagged.count > page.limit ? PageRequest<Int>.cursor(after: offset + page.limit) : nil)
    }

    /// Deliveries of unfinished transactions idle for at least `olderThan` seconds, one page.
    func unfinished(olderThan: Int64, page: PageRequest<DeliveryKey>) async throws(DepotError) -> UnfinishedBody {
        let fetched = try await ledgerCall { () async throws(LedgerError) in
            try await ledger.unfinished(before: clock() - olderThan + 1, after: page.after, limit: page.limit + 1)
        }
        let (statuses, next) = page.page(fetched) {
            DeliveryKey(transactionId: $0.transactionId, contentId: $0.delivery.contentId, version: $0.delivery.version)
        }
        return UnfinishedBody(deliveries: statuses.map(report), nextCursor: next)
    }

    /// The transaction, its deliveries, delivery evidence and one page of its audit trail.
    func report(transactionId: String, auditPage: PageRequest<Int64>? = nil) async throws(DepotError) -> TransactionReportBody {
        // An id no signed transaction can carry was never redeemed; the ledger is not asked (PostgreSQL refuses
        // text holding U+0000 as an error, not as an unknown id).
        guard TransactionIdentifier.isAcceptable(transactionId) else {
            throw DepotError(.unknownTransaction, "no transaction \(transactionId) was redeemed here")
        }
        guard let stored = try await ledgerCall({ () async throws(LedgerError) in try await ledger.transaction(id: transactionId) }) else {
            throw DepotError(.unknownTransaction, "no transaction \(transactionId) was redeemed here")
        }
        let limit = auditPage?.limit ?? 100
        let (statuses, fetched, jobs) = try await ledgerCall { () async throws(LedgerError) in
            (
                try await ledger.deliveries(transactionId: transactionId),
                try await ledger.auditTrail(transactionId: transactionId, afterSequence: auditPage?.after ?? 0, limit: limit + 1),
                try await ledger.storeJobs(transactionId: transactionId)
            )
        }
        let audit = Array(fetched.prefix(limit))
        let evidence = context.evidence(of: stored, statuses: statuses)
        return TransactionReportBody(
            transaction: Self.body(stored), revoked: stored.transaction.isRevoked, deliveries: statuses.map(report),
            evidence: evidence.rawValue, deliveryStatus: evidence.deliveryStatus,
            audit: audit.map { .init(at: UTCTimestamp.format($0.at), event: $0.event, detail: $0.detail) },
            appleJobs: jobs.map(AppleJobBody.init),
            nextCursor: fetched.count > limit ? audit.last.map { PageRequest<Int64>.cursor(after: $0.sequence) } : nil)
    }

    private func report(_ status: DeliveryStatus) -> DeliveryReportBody {
        DeliveryReportBody(
            transactionId: status.transactionId, contentId: status.delivery.contentId, version: status.delivery.version,
            digest: status.delivery.digest.hex, size: context.bundleSize(of: status.delivery),
            grantsIssued: status.grantsIssued, bytesServed: status.bytesCovered,
            confirmedAt: status.confirmedAt.map(UTCTimestamp.format), lastActivityAt: UTCTimestamp.format(status.lastActivityAt),
            storeDeadline: status.storeDeadline.map(UTCTimestamp.format))
    }
}
