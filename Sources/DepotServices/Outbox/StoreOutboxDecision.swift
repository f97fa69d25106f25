import DepotAppStore
import DepotLedger

/// What becomes of an outbox job after an attempt failed: tried again later (backoff with full jitter, or
/// the store's `Retry-After` when it sent one), or given up and listed for operators.
///
/// Retried: 429, 5xx, transport failures and timeouts, and 401 (a key being rotated or a clock being set
/// right can cure it), for as long as the job is younger than the retry period. Given up at once: any other
/// answer from the store (a 4xx it will repeat; Google's 408 is retried too) and a transaction whose
/// environment has no base URL.
package enum StoreOutboxDecision: Equatable {
    /// Try again at this time (seconds since 1970).
    case retry(at: Int64)
    /// Give up.
    case fail

    /// How long Apple waits for Send Consumption Information after a CONSUMPTION_REQUEST.
    static let consumptionWindowSeconds: Int64 = 12 * 3600

    /// The decision after `error` on `job` at `now`; `random` yields a value in 0..<1.
    package static func after(
        _ error: AppStoreAPIError, job: StoreJob, now: Int64, settings: StoreOutboxSettings, random: () -> Double
    )
        -> StoreOutboxDecision
    {
        let retryable: Bool
        switch error.kind {
        case .apple(let status, _, _): retryable = error.isRetryable || status == 401
        case .transport, .timeout: retryable = true
        case .configuration: retryable = false
        }
        return after(retryable: retryable, retryAfter: error.retryAfter, job: job, now: now, settings: settings, random: random)
    }

    /// The decision after a failure of `job` at `now` that `retryable` says may pass, with the answer's
    /// `Retry-After` field when it had one; the same for every store's calls.
    package static func after(
        retryable: Bool, retryAfter: String?, job: StoreJob, now: Int64, settings: StoreOutboxSettings, random: () -> Double
    )
        -> StoreOutboxDecision
    {
        guard retryable else { return .fail }
        let wait: Double
        if let field = retryAfter, let seconds = AppStoreAPIRetryPolicy.retryAfterSeconds(field) {
            wait = seconds
        } else {
            let policy = AppStoreAPIRetryPolicy(
                maxAttempts: Int.max, baseDelaySeconds: settings.baseDelaySeconds, maxDelaySeconds: settings.maxDelaySeconds)
            let jittered = AppStoreAPIError(.transport("backoff"))
            wait = policy.delay(after: jittered, attempt: max(1, job.attempts), retryAfter: nil, random: random) ?? settings.maxDelaySeconds
        }
        // `now` is whole seconds, rounded down: one second more makes sure no attempt comes earlier than asked.
        let next = now + Int64(wait.rounded(.up)) + 1
        // Apple waits 12 hours for a consumption answer; one sent later is of no use.
        let period = job.kind == .consumption ? min(settings.retryPeriodSeconds, consumptionWindowSeconds) : settings.retryPeriodSeconds
        guard next < job.createdAt + period else { return .fail }
        return .retry(at: next)
    }
}
