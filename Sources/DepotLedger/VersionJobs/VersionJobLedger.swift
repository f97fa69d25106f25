/// The ledger's records of version jobs: a publisher's upload on its way to a staged version. Part of every
/// `Ledger`.
///
/// One job at a time works on a product × content × version: a new one is refused while another is live
/// (not final and reported within the staleness bound). A worker reports by moving the state or by a
/// heartbeat; a job that stopped reporting (its server was stopped or killed) is failed by
/// `failStaleVersionJobs`, so the catalog never shows work that nobody does.
package protocol VersionJobLedger: Sendable {
    /// Records `job` (state `received`) unless a live job for the same product, content and version exists;
    /// jobs not updated since `staleBefore` do not count as live. Final jobs for the same key are removed.
    func createVersionJob(_ job: VersionJob, staleBefore: Int64) async throws(LedgerError) -> VersionJobCreation

    /// Moves a job that is not final to `state` (with `failureReason` for `failed`) and records `now` as its
    /// last report; the same state is a heartbeat. False when the job is gone or already final.
    func updateVersionJob(
        id: String, state: VersionJobState, failureReason: String?, now: Int64
    )
        async throws(LedgerError) -> Bool

    /// One job, if recorded.
    func versionJob(id: String) async throws(LedgerError) -> VersionJob?

    /// A product's jobs, newest first.
    func versionJobs(productId: String) async throws(LedgerError) -> [VersionJob]

    /// Fails every job that is not final and was last updated before `before`, with `reason`; returns how many.
    func failStaleVersionJobs(before: Int64, reason: String, now: Int64) async throws(LedgerError) -> Int
}
