import DepotAPI
import DepotCore
import DepotLedger

extension AppleJobBody {
    /// The report of an outbox job.
    init(_ job: StoreJob) {
        self.init(
            id: job.id, kind: job.kind.rawValue, transactionId: job.transactionId, environment: job.environment,
            state: job.state.rawValue, attempts: job.attempts, nextAttemptAt: UTCTimestamp.format(job.nextAttemptAt),
            leaseOwner: job.leaseOwner, leaseExpiresAt: job.leaseExpiresAt.map(UTCTimestamp.format),
            lastError: job.lastError, createdAt: UTCTimestamp.format(job.createdAt),
            updatedAt: UTCTimestamp.format(job.updatedAt))
    }
}

extension DeliveryService {
    /// A page of the pending and failed outbox jobs.
    func unsettledStoreJobs(_ page: PageRequest<Int64>) async throws(DepotError) -> AppleOutboxBody {
        let fetched = try await ledgerCall { () async throws(LedgerError) in
            try await ledger.storeJobs(states: [.pending, .failed], afterId: page.after ?? 0, limit: page.limit + 1)
        }
        let jobs = Array(fetched.prefix(page.limit))
        return AppleOutboxBody(
            enabled: appStoreServerAPI != nil, jobs: jobs.map(AppleJobBody.init),
            nextCursor: fetched.count > page.limit ? jobs.last.map { PageRequest<Int64>.cursor(after: $0.id) } : nil)
    }
}
