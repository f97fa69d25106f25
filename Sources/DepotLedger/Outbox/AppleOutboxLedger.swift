/// The outbox of App Store Server API calls. Part of every `Ledger`.
///
/// Jobs are enqueued by the ledger methods that record their cause (`Ledger.finish` with
/// `enqueueAppleFinish`), never on their own, so a recorded fact and its call to Apple commit together.
/// A sender claims due jobs under a lease; every later change names the owner and applies only while it still
/// holds the job, so a sender whose lease ran out (and whose job another sender took) changes nothing.
package protocol AppleOutboxLedger: Sendable {
    /// Enqueues Finish Transaction for a transaction that is already finished (one finished while the API was
    /// not configured, confirmed again by the app); nothing when it is not finished or a job exists. True when a
    /// job was enqueued.
    func enqueueAppleFinish(transactionId: String, now: Int64) async throws(LedgerError) -> Bool

    /// Claims at most `limit` pending jobs that are due at `now` and not leased (or whose lease has ended),
    /// oldest due first, for `owner` until `now + leaseSeconds`; each claim counts one attempt. Senders on one
    /// database never claim the same job while its lease runs (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
    func claimAppleJobs(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws(LedgerError) -> [AppleJob]

    /// Marks a job `done`; false (nothing changed) when `owner` no longer holds it.
    func completeAppleJob(id: Int64, owner: String, now: Int64) async throws(LedgerError) -> Bool

    /// Releases a job for another attempt at `nextAttemptAt`, recording why this one failed; false when
    /// `owner` no longer holds it.
    func retryAppleJob(
        id: Int64, owner: String, nextAttemptAt: Int64, error: String, now: Int64
    ) async throws(LedgerError)
        -> Bool

    /// Marks a job `failed` for good, recording why; false when `owner` no longer holds it.
    func failAppleJob(id: Int64, owner: String, error: String, now: Int64) async throws(LedgerError) -> Bool

    /// Jobs in one of `states`, oldest first: at most `limit` of them with an id greater than `afterId`.
    func appleJobs(states: [AppleJob.State], afterId: Int64, limit: Int) async throws(LedgerError) -> [AppleJob]

    /// Every job of one transaction, oldest first.
    func appleJobs(transactionId: String) async throws(LedgerError) -> [AppleJob]

    /// How many jobs are in each state (states without jobs are left out): the outbox's depth, for metrics.
    func appleJobCounts() async throws(LedgerError) -> [AppleJob.State: Int]

    /// Records (or, with `consented` false, withdraws) the customer's consent to share consumption data with
    /// the App Store for a transaction; false (nothing changed) when the transaction is unknown.
    func setConsumptionConsent(transactionId: String, consented: Bool, now: Int64) async throws(LedgerError) -> Bool

    /// When the customer consented to share consumption data for a transaction, nil when not (or withdrawn).
    func consumptionConsentedAt(transactionId: String) async throws(LedgerError) -> Int64?

    /// Records a Google Play pending refund review of a transaction and enqueues, in the same ledger transaction,
    /// its answer (`orders.reviewrefund`) as the transaction's `consumption` job. False when nothing changed: the
    /// transaction is unknown, or the review was already recorded (the same token).
    func recordRefundReview(transactionId: String, pendingRefundToken: String, now: Int64) async throws(LedgerError) -> Bool

    /// The token of a transaction's latest Google Play refund review, nil when none was recorded.
    func pendingRefundToken(transactionId: String) async throws(LedgerError) -> String?
}

extension AppleOutboxLedger {
    /// Every pending and failed job, oldest first: what operators are shown.
    package func unsettledAppleJobs() async throws(LedgerError) -> [AppleJob] {
        try await appleJobs(states: [.pending, .failed], afterId: 0, limit: Int.max)
    }
}
