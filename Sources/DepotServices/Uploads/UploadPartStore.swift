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
