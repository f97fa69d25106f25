/// The ledger's records of resumable uploads (tus). Part of every `Ledger`.
///
/// Offsets only move forward by compare-and-set, so two writers that both believed they held an upload
/// cannot both move it, and an offset never claims bytes that were not made durable first.
package protocol UploadLedger: Sendable {
    /// Records a new upload. Ids are random; a clash is an error.
    func createUpload(_ upload: UploadRecord) async throws(LedgerError)

    /// Records a new upload only when its publisher's live uploads (unexpired at `now`, not complete) leave room for
    /// it under `quota` (a deferred length counts as `quota.deferredBytes`); the count and the write are one
    /// transaction, so uploads created at once cannot pass the quota together. Ids are random; a clash is an error.
    func createUpload(
        _ upload: UploadRecord, within quota: UploadQuota, now: Int64
    ) async throws(LedgerError)
        -> UploadQuotaOutcome

    /// One upload, if recorded (expired or not).
    func upload(id: String) async throws(LedgerError) -> UploadRecord?

    /// Moves an upload's offset from `from` to `to` and its expiry to `expiresAt`, setting its length
    /// when it was deferred and `length` is given; `now` is recorded as its last activity. False (nothing
    /// changed) when the offset is no longer `from`, the upload is gone, a length is given for an upload
    /// that already has a different one, or `to` would pass the length.
    func advanceUpload(
        id: String, from: Int64, to: Int64, length: Int64?, expiresAt: Int64, now: Int64
    ) async throws(LedgerError) -> Bool

    /// Removes an upload's record; false when there was none.
    func deleteUpload(id: String) async throws(LedgerError) -> Bool

    /// Ids of uploads whose expiry is at or before `now`, at most `limit` of them, oldest expiry first.
    func expiredUploads(now: Int64, limit: Int) async throws(LedgerError) -> [String]
}
