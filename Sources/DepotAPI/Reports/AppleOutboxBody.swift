/// One outbox job as operators see it (the admin report, `depot transactions --apple-pending`).
public struct AppleJobBody: Codable, Sendable {
    /// The job's id.
    public var id: Int64
    /// Which call: `finish` (Finish Transaction) or `consumption` (Send Consumption Information).
    public var kind: String
    /// The transaction it is for.
    public var transactionId: String
    /// The transaction's App Store environment (`Production`, `Sandbox`, ...).
    public var environment: String
    /// `pending`, `done` or `failed`.
    public var state: String
    /// Attempts started so far.
    public var attempts: Int
    /// When it is tried next (ISO 8601 UTC).
    public var nextAttemptAt: String
    /// The sender holding it and until when, while it is being sent.
    public var leaseOwner: String?
    /// When the sender's hold ends.
    public var leaseExpiresAt: String?
    /// Why the last attempt failed.
    public var lastError: String?
    /// When it was enqueued.
    public var createdAt: String
    /// When it last changed.
    public var updatedAt: String

    /// A job as reported.
    public init(
        id: Int64, kind: String, transactionId: String, environment: String, state: String, attempts: Int,
        nextAttemptAt: String, leaseOwner: String? = nil, leaseExpiresAt: String? = nil, lastError: String? = nil,
        createdAt: String, updatedAt: String
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

/// `GET /v1/admin/apple-outbox`: pending and failed App Store Server API calls, oldest first.
public struct AppleOutboxBody: Codable, Sendable {
    /// Whether this instance calls the App Store Server API at all.
    public var enabled: Bool
    /// The jobs of this page.
    public var jobs: [AppleJobBody]
    /// The next page (`?cursor=`), when there is one.
    public var nextCursor: String?

    /// A page of the outbox.
    public init(enabled: Bool, jobs: [AppleJobBody], nextCursor: String? = nil) {
        self.enabled = enabled
        self.jobs = jobs
        self.nextCursor = nextCursor
    }
}
