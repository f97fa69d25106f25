import DepotAPI
import DepotCore
import DepotLedger

/// One outbox job as operators see it (the admin report, `depot transactions --apple-pending`).
struct AppleJobBody: Encodable, Sendable {
    var id: Int64
    var kind: String
    var transactionId: String
    var environment: String
    var state: String
    var attempts: Int
    var nextAttemptAt: String
    /// The sender holding it and until when, while it is being sent.
    var leaseOwner: String?
    var leaseExpiresAt: String?
    var lastError: String?
    var createdAt: String
    var updatedAt: String

    init(_ job: AppleJob) {
        id = job.id
        kind = job.kind.rawValue
        transactionId = job.transactionId
        environment = job.environment
        state = job.state.rawValue
        attempts = job.attempts
        nextAttemptAt = UTCTimestamp.format(job.nextAttemptAt)
        leaseOwner = job.leaseOwner
        leaseExpiresAt = job.leaseExpiresAt.map(UTCTimestamp.format)
        lastError = job.lastError
        createdAt = UTCTimestamp.format(job.createdAt)
        updatedAt = UTCTimestamp.format(job.updatedAt)
    }
}

/// `GET /v1/admin/apple-outbox`: pending and failed App Store Server API calls, oldest first.
struct AppleOutboxBody: Encodable, Sendable {
    /// Whether this instance calls the App Store Server API at all.
    var enabled: Bool
    var jobs: [AppleJobBody]
    /// The next page (`?cursor=`), when there is one.
    var nextCursor: String?
}

extension DeliveryService {
    /// A page of the pending and failed outbox jobs.
    func unsettledAppleJobs(_ page: PageRequest<Int64>) async throws(DepotError) -> AppleOutboxBody {
        let fetched = try await ledgerCall { () async throws(LedgerError) in
            try await ledger.appleJobs(states: [.pending, .failed], afterId: page.after ?? 0, limit: page.limit + 1)
        }
        let jobs = Array(fetched.prefix(page.limit))
        return AppleOutboxBody(
            enabled: appStoreServerAPI != nil, jobs: jobs.map(AppleJobBody.init),
            nextCursor: fetched.count > page.limit ? jobs.last.map { PageRequest<Int64>.cursor(after: $0.id) } : nil)
    }
}
