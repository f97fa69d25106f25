/// Why a tus request was refused, or could not be carried out. The server maps every case to its error code
/// (and the status tus 1.0 gives it) in one place.
package enum UploadError: Error, Sendable, Equatable {
    /// The `Upload-Metadata` header is malformed.
    case badMetadata(String)
    /// A tus header is missing or malformed.
    case badUploadHeader(String)
    /// No such upload (never made, terminated, expired and removed, or another publisher's).
    case uploadNotFound
    /// `Upload-Offset` is not the upload's offset.
    case offsetMismatch(expected: Int64, given: Int64)
    /// The upload already has all its bytes.
    case uploadComplete
    /// The upload expired.
    case uploadExpired
    /// A tus version other than the one served (nil: none sent).
    case unsupportedTusVersion(String?)
    /// The publisher already holds as many live uploads as it may.
    case uploadCountQuota(Int)
    /// The publisher's live uploads and this one would declare more bytes than it may hold.
    case uploadBytesQuota(Int64)
    /// Bigger than `Tus-Max-Size` or than the upload's own length.
    case uploadTooLarge(String)
    /// A PATCH body that is not `application/offset+octet-stream`.
    case uploadMediaType
    /// Another request is writing to this upload right now.
    case uploadLocked
    /// The chunk's checksum does not match; the chunk was discarded.
    case checksumMismatch(String)
    /// An `Upload-Checksum` algorithm that is not served.
    case unsupportedChecksum(String)
    /// The upload's bytes could not be stored (logged with the system's reason).
    case storage
    /// The disk is full, or below its free-space floor (`storage.minFreeBytes`): nothing was counted.
    case insufficientStorage
    /// The ledger cannot be reached.
    case ledgerUnavailable
}
