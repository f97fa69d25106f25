/// One call to the App Store Server API that must happen, as the outbox holds it: written in the same ledger
/// transaction as the fact that causes it, claimed by one sender at a time under a lease, retried until
/// Apple acknowledges it or its retry period runs out.
package struct AppleJob: Sendable, Equatable {
    /// Which call.
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Finish Transaction, after a confirmed delivery.
        case finish
        /// Send Consumption Information, on a consumption request.
        case consumption
    }

    /// Where the job stands.
    package enum State: String, Sendable, Equatable, CaseIterable {
        /// Waiting for its next attempt (or being sent, while a lease is held).
        case pending
        /// Apple acknowledged it.
        case done
        /// Given up after the retry period, or refused by Apple for good: listed for operators.
        case failed
    }

    /// The job's id in the ledger.
    package var id: Int64
    /// Which call.
    package var kind: Kind
    /// The App Store transaction it is about.
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
