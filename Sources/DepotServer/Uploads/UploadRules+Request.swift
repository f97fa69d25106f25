import DepotLedger
import HTTPTypes

/// The tus rules applied to a request's method and to the upload as the ledger records it.
extension UploadRules {
    /// Every request but OPTIONS must carry `Tus-Resumable: 1.0.0` (tus 1.0 "Tus-Resumable"; 412 otherwise).
    static func checkVersion(method: HTTPRequest.Method, tusResumable: String?) throws(DepotError) {
        guard method != .options else { return }
        guard isServedVersion(tusResumable) else { throw .unsupportedTusVersion(tusResumable) }
    }

    /// Whether an upload may be answered at all: 404 when unknown, 410 once expired.
    static func live(_ record: UploadRecord?, now: Int64) throws(DepotError) -> UploadRecord {
        guard let record else { throw .uploadNotFound }
        guard record.expiresAt > now else { throw .uploadExpired }
        return record
    }

    /// tus core PATCH: the upload lives (404, 410), then the rules of ``write(offset:length:contentType:uploadOffset:uploadLength:contentLength:maxSize:)``
    /// on its offset and length.
    static func patch(
        _ record: UploadRecord?, now: Int64, contentType: String?, uploadOffset: String?, uploadLength: String?,
        contentLength: Int64?, maxSize: Int64
    ) throws(DepotError) -> Write {
        let record = try live(record, now: now)
        return try write(
            offset: record.offset, length: record.length, contentType: contentType, uploadOffset: uploadOffset,
            uploadLength: uploadLength, contentLength: contentLength, maxSize: maxSize)
    }
}
