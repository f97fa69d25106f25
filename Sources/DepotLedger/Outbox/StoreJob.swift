/// One call to a store that must happen, as the outbox holds it (the App Store Server API for an App Store
/// transaction, the Google Play Developer API for a Play purchase): written in the same ledger transaction as the
/// fact that causes it, claimed by one sender at a time under a lease, retried until the store acknowledges it or
/// its retry period runs out. The table keeps its first name, `apple_outbox`.
package struct StoreJob: Sendable, Equatable {
    /// Which call.
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        /// After a confirmed delivery: Finish Transaction (App Store), acknowledge or consume (Google Play).
        case finish
        /// On a refund request: Send Consumption Information (App Store's CONSUMPTION_REQUEST), or the answer to a
        /// pending refund review (Google Play's `orders.reviewrefund`).
        case consumption
    }

    /// Where the job stands.
    package enum State: String, Sendable, Equatable, CaseIterable {
        /// Waiting for its next attempt (or being sent, while a lease is held).
        case pending
        /// The store acknowledged it.
        case done
        /// Given up after the retry period, or refused by the store for good: listed for operators.
        case failed
    }

    /// The job's id in the ledger.
    package var id: Int64
    /// Which call.
    package var kind: Kind
    /// The transaction it is about.
    package var transactionId: String
    /// The transaction's App Store environment (`Production`, `Sandbox`, ...), which picks the base URL.
    package var environment: String
    /// Where it stands.
    package var state: State
    /// Attempts started so far (a claim counts as one, even if its sender died).
    package var attempts: Int
    /// When it may next be claimed, seconds since 1970.
    package var nextAttemptAt: Int64
    /// The sender holding it, while a lease runs.
    package var leaseOwner: String?
    /// When the lease ends, seconds since 1970; past it, another sender may claim the job.
    package var leaseExpiresAt: Int64?
    /// Why the last attempt failed, for operators.
    package var lastError: String?
    /// When it was enqueued, seconds since 1970.
    package var createdAt: Int64
    /// When it last changed, seconds since 1970.
    package var updatedAt: Int64

    /// Creates a job record.
    package init(
        id: Int64, kind: Kind, transactionId: String, environment: String, state: State, attempts: Int,
        nextAttemptAt: Int64, leaseOwner: String?, leaseExpiresAt: Int64?, lastError: String?, createdAt: Int64,
        updatedAt: Int64
    ) {
        self.id = id
        self.kind = kind
        self.transactionId = transactionId
        self.environment = environment
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.leaseOwner = leaseOwner
        self.leaseExpiresAt = leaseExpiresAt
        self.lastError = lastError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
