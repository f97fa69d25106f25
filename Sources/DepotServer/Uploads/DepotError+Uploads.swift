// The tus fuzz build (Fuzz/run.sh) compiles this file into one module with the error table and the tus rules.
#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotAPI
import DepotServices
#endif
/// The errors of the tus upload routes; `ErrorCode`'s table gives each the status tus 1.0 gives it.
extension DepotError {
    /// The answer to an upload's refusal.
    init(_ error: UploadError) {
        switch error {
        case .badMetadata(let message):
            self.init(.uploadMetadataInvalid, message)
        case .badUploadHeader(let message):
            self.init(.uploadHeaderInvalid, message)
        case .uploadNotFound:
            self.init(.uploadNotFound, "no such upload")
        case .offsetMismatch(let expected, let given):
            self.init(
                .uploadOffsetMismatch,
                "Upload-Offset is \(given) but the upload has \(expected) bytes; send HEAD to learn the offset")
        case .uploadComplete:
            self.init(.uploadComplete, "the upload already has all its bytes")
        case .uploadExpired:
            self.init(.uploadExpired, "the upload expired")
        case .unsupportedTusVersion(let given):
            self.init(
                .tusVersionUnsupported, given.map { "Tus-Resumable \($0) is not served; use 1.0.0" } ?? "send Tus-Resumable: 1.0.0")
        case .uploadCountQuota(let limit):
            self.init(
                .uploadCountQuotaExceeded,
                "this publisher already has \(limit) unfinished uploads (uploads.maxLivePerPublisher); finish or terminate one first")
        case .uploadBytesQuota(let limit):
            self.init(
                .uploadBytesQuotaExceeded,
                "this publisher's unfinished uploads would declare more than \(limit) bytes (uploads.maxLiveBytesPerPublisher); "
                    + "finish or terminate one first")
        case .uploadTooLarge(let message):
            self.init(.uploadTooLarge, message)
        case .uploadMediaType:
            self.init(.uploadMediaType, "send the bytes as Content-Type: application/offset+octet-stream")
        case .uploadLocked:
            self.init(.uploadLocked, "another request is writing to this upload; retry once it ends")
        case .checksumMismatch(let algorithm):
            self.init(
                .uploadChecksumMismatch,
                "the \(algorithm) checksum of the bytes sent does not match Upload-Checksum; the chunk was discarded")
        case .unsupportedChecksum(let algorithm):
            self.init(.uploadChecksumUnsupported, "checksum algorithm `\(algorithm)` is not served; use sha1 or sha256")
        case .storage:
            self.init(.uploadStorage, "the upload could not be stored; retry later")
        case .insufficientStorage:
            self.init(.insufficientStorage, "the server's disk is full; nothing was counted, retry once space was freed")
        case .ledgerUnavailable:
            self.init(.ledgerUnavailable, "the ledger is unavailable; retry later")
        }
    }
}
