import DepotLedger

/// Where the counted bytes of uploads are kept when instances share no directory (an object store): each PATCH's
/// bytes become one object, named in the ledger with the offset they count, so that any instance can continue the
/// upload, and the instance that stages it puts the objects together again.
package protocol UploadPartStore: Sendable {
    /// Stores the file at `path` (one PATCH's bytes) as the object `key`.
    func storePart(_ key: String, path: String) async throws
    /// Writes the parts' bytes, in order, into a new file at `path`.
    func assemble(_ parts: [UploadPart], into path: String) async throws
    /// Deletes the objects `keys` (one already gone is fine).
    func deleteParts(_ keys: [String]) async throws
}

extension UploadPartStore {
    /// A fresh object key for the bytes of upload `id` from `start` to `end` (random, so a writer that lost the
    /// upload's lease can never overwrite the part another writer recorded).
    static func key(upload id: String, start: Int64, end: Int64) -> String {
        "uploads/\(id)/\(start)-\(end)-\(UploadService.newId().prefix(16))"
    }
}
