import DepotAPI
/// The errors of the tus upload routes; `ErrorCode`'s table gives each the status tus 1.0 gives it.
extension DepotError {
    /// 400: the `Upload-Metadata` header is malformed.
    static func badMetadata(_ message: String) -> DepotError {
        DepotError(.uploadMetadataInvalid, message)
    }

    /// 400: a tus header is missing or malformed.
    static func badUploadHeader(_ message: String) -> DepotError {
        DepotError(.uploadHeaderInvalid, message)
    }

    /// 404: no such upload (never made, terminated, or expired and removed).
    static let uploadNotFound = DepotError(.uploadNotFound, "no such upload")

    /// 409: `Upload-Offset` is not the upload's offset.
    static func offsetMismatch(expected: Int64, given: Int64) -> DepotError {
        DepotError(
            .uploadOffsetMismatch, "Upload-Offset is \(given) but the upload has \(expected) bytes; send HEAD to learn the offset")
    }

    /// 409: the upload already has all its bytes.
    static let uploadComplete = DepotError(.uploadComplete, "the upload already has all its bytes")

    /// 410: the upload expired.
    static let uploadExpired = DepotError(.uploadExpired, "the upload expired")

    /// 412: a tus version other than 1.0.0.
    static func unsupportedTusVersion(_ given: String?) -> DepotError {
        DepotError(
            .tusVersionUnsupported, given.map { "Tus-Resumable \($0) is not served; use 1.0.0" } ?? "send Tus-Resumable: 1.0.0")
    }

    /// 403: the publisher already holds as many live uploads as it may.
    static func uploadCountQuota(_ limit: Int) -> DepotError {
        DepotError(
            .uploadCountQuotaExceeded,
            "this publisher already has \(limit) unfinished uploads (uploads.maxLivePerPublisher); finish or terminate one first")
    }

    /// 403: the publisher's live uploads and this one would declare more bytes than it may hold.
    static func uploadBytesQuota(_ limit: Int64) -> DepotError {
        DepotError(
            .uploadBytesQuotaExceeded,
            "this publisher's unfinished uploads would declare more than \(limit) bytes (uploads.maxLiveBytesPerPublisher); "
                + "finish or terminate one first")
    }

    /// 413: bigger than `Tus-Max-Size` or than the upload's own length.
    static func uploadTooLarge(_ message: String) -> DepotError {
        DepotError(.uploadTooLarge, message)
    }

    /// 415: a PATCH body that is not `application/offset+octet-stream`.
    static let uploadMediaType = DepotError(.uploadMediaType, "send the bytes as Content-Type: application/offset+octet-stream")

    /// 423: another request is writing to this upload right now.
    static let uploadLocked = DepotError(.uploadLocked, "another request is writing to this upload; retry once it ends")

    /// 460 (tus checksum extension): the chunk's checksum does not match; the chunk was discarded.
    static func checksumMismatch(_ algorithm: String) -> DepotError {
        DepotError(
            .uploadChecksumMismatch,
            "the \(algorithm) checksum of the bytes sent does not match Upload-Checksum; the chunk was discarded")
    }

    /// 400: an `Upload-Checksum` algorithm that is not served.
    static func unsupportedChecksum(_ algorithm: String) -> DepotError {
        DepotError(
            .uploadChecksumUnsupported, "checksum algorithm `\(algorithm)` is not served; use sha1 or sha256")
    }
}
