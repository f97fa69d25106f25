import DepotLedger

/// The tus rules applied to the upload as the ledger records it.
extension UploadRules {
    /// Whether an upload may be answered at all: 404 when unknown, 410 once expired.
    package static func live(_ record: UploadRecord?, now: Int64) throws(UploadError) -> UploadRecord {
        guard let record else { throw .uploadNotFound }
        guard record.expiresAt > now else { throw .uploadExpired }
        return record
    }

    /// tus core PATCH: the upload lives (404, 410), then the rules of ``write(offset:length:contentType:uploadOffset:uploadLength:contentLength:maxSize:)``
    /// on its offset and length.
    package static func patch(
        _ record: UploadRecord?, now: Int64, contentType: String?, uploadOffset: String?, uploadLength: String?,
        contentLength: Int64?, maxSize: Int64
    ) throws(UploadError) -> Write {
        let record = try live(record, now: now)
        return try write(
            offset: record.offset, length: record.length, contentType: contentType, uploadOffset: uploadOffset,
            uploadLength: uploadLength, contentLength: contentLength, maxSize: maxSize)
    }
}
