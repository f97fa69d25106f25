@testable import DepotServerTestSupport
import DepotAppStore
import DepotLedger
import Testing

@testable import DepotServer
@testable import DepotServices

/// What becomes of an outbox job after a failed attempt: a table of Apple's answers and transport failures.
@Suite struct StoreOutboxDecisionTests {
    static let settings = StoreOutboxSettings(
        pollIntervalMilliseconds: 1000, batchSize: 10, leaseSeconds: 60, baseDelaySeconds: 4, maxDelaySeconds: 100,
        retryPeriodSeconds: 1000)

    static func job(attempts: Int, createdAt: Int64 = 0) -> StoreJob {
        StoreJob(
            id: 1, kind: .finish, transactionId: "1", environment: "Sandbox", state: .pending, attempts: attempts,
            nextAttemptAt: 0, leaseOwner: "a", leaseExpiresAt: 60, lastError: nil, createdAt: createdAt, updatedAt: 0)
    }

    static func apple(_ status: Int, retryAfter: String? = nil) -> AppStoreAPIError {
        AppStoreAPIError(.apple(status: status, errorCode: nil, errorMessage: nil), retryAfter: retryAfter)
    }

    /// One failed attempt: the error, the job's attempts so far, and the expected decision at now = 100.
    struct Row: Sendable, CustomTestStringConvertible {
        var error: AppStoreAPIError
        var attempts: Int
        var expected: StoreOutboxDecision
        init(_ error: AppStoreAPIError, _ attempts: Int, _ expected: StoreOutboxDecision) {
            self.error = error
            self.attempts = attempts
            self.expected = expected
        }
        var testDescription: String { "\(error) after \(attempts) attempt(s)" }
    }

    static let table: [Row] = [
        // Backoff: up to base × 2^(attempts-1), capped, times the jitter (1 here), plus the rounding second.
        Row(apple(500), 1, .retry(at: 100 + 4 + 1)),
        Row(apple(503), 3, .retry(at: 100 + 16 + 1)),
        Row(apple(502), 10, .retry(at: 100 + 100 + 1)),
        Row(AppStoreAPIError(.timeout), 2, .retry(at: 100 + 8 + 1)),
        Row(AppStoreAPIError(.transport("connection refused")), 1, .retry(at: 100 + 4 + 1)),
        // Apple's Retry-After wins, even beyond the longest backoff.
        Row(apple(429, retryAfter: "30"), 1, .retry(at: 100 + 30 + 1)),
        Row(apple(429, retryAfter: "500"), 1, .retry(at: 100 + 500 + 1)),
        Row(apple(429, retryAfter: "soon"), 1, .retry(at: 100 + 4 + 1)),
        // A token refused may be cured by the operator: retried.
        Row(apple(401), 1, .retry(at: 100 + 4 + 1)),
        // Other answers are final.
        Row(apple(400), 1, .fail),
        Row(apple(404), 1, .fail),
        Row(apple(403), 1, .fail),
        Row(AppStoreAPIError(.configuration("no base URL for Xcode")), 1, .fail),
        // Past the retry period: failed for operators.
        Row(apple(429, retryAfter: "1000"), 1, .fail),
        Row(apple(500), 10, .retry(at: 201)),
    ]

    @Test(arguments: table)
    func decisions(row: Row) {
        let decision = StoreOutboxDecision.after(
            row.error, job: Self.job(attempts: row.attempts), now: 100, settings: Self.settings, random: { 1 })
        #expect(decision == row.expected)
    }

    @Test func theRetryPeriodCountsFromEnqueueing() {
        let old = Self.job(attempts: 5, createdAt: -950)
        #expect(StoreOutboxDecision.after(Self.apple(500), job: old, now: 100, settings: Self.settings, random: { 0 }) == .fail)
        #expect(
            StoreOutboxDecision.after(Self.apple(500), job: Self.job(attempts: 5), now: 100, settings: Self.settings, random: { 0 })
                == .retry(at: 101))
    }
}
