/// The ledger's records of resumable uploads (tus). Part of every `Ledger`.
///
/// Offsets only move forward by compare-and-set, so two writers that both believed they held an upload
/// cannot both move it, and an offset never claims bytes that were not made durable first.
package protocol UploadLedger: Sendable {
    /// Records a new upload. Ids are random; a clash is an error.
    func createUpload(_ upload: UploadRecord) async throws(LedgerError)

    /// Records a new upload only when its publisher's live uploads (unexpired at `now`, and unfinished or finished
    /// but not yet consumed by a staged version job) leave room for it under `quota` (a deferred length counts as `quota.deferredBytes`); the count and the write are one
    /// transaction, so uploads created at once cannot pass the quota together. Ids are random; a clash is an error.
    func createUpload(
        _ upload: UploadRecord, within quota: UploadQuota, now: Int64
    ) async throws(LedgerError)
        -> UploadQuotaOutcome

    /// One upload, if recorded (expired or not).
    func upload(id: String) async throws(LedgerError) -> UploadRecord?

    /// Moves an upload's offset from `from` to `to` and its expiry to `expiresAt`, setting its length
    /// when it was deferred and `length` is given; `now` is recorded as its last activity. With `part`, the bytes
    /// from `from` to `to` are recorded as kept in that object (uploads in an object store), in the same
    /// transaction. False (nothing changed) when the offset is no longer `from`, the upload is gone, a length is
    /// given for an upload that already has a different one, or `to` would pass the length.
    func advanceUpload(
        id: String, from: Int64, to: Int64, length: Int64?, expiresAt: Int64, now: Int64, part: String?
    ) async throws(LedgerError) -> Bool

    /// The objects holding an upload's counted bytes, in order (none for an upload kept on a local disk).
    func uploadParts(id: String) async throws(LedgerError) -> [UploadPart]

    /// Removes an upload's record and its parts' records; false when there was none.
    func deleteUpload(id: String) async throws(LedgerError) -> Bool

    /// Ids of uploads whose expiry is at or before `now`, at most `limit` of them, oldest expiry first.
    func expiredUploads(now: Int64, limit: Int) async throws(LedgerError) -> [String]
}

extension UploadLedger {
    /// Moves an upload's offset with no part recorded (an upload on a local disk); see
    /// ``advanceUpload(id:from:to:length:expiresAt:now:part:)``.
    package func advanceUpload(
        id: String, from: Int64, to: Int64, length: Int64?, expiresAt: Int64, now: Int64
    ) async throws(LedgerError) -> Bool {
        try await advanceUpload(id: id, from: from, to: to, length: length, expiresAt: expiresAt, now: now, part: nil)
    }
}

/// A run of an upload's counted bytes, kept in one object of the object store.
package struct UploadPart: Sendable, Equatable {
    /// The offset of its first byte.
    package var start: Int64
    /// The offset just past its last byte.
    package var end: Int64
    /// The object's key.
    package var key: String

    /// A part as recorded.
    package init(start: Int64, end: Int64, key: String) {
        self.start = start
        self.end = end
        self.key = key
    }
}
