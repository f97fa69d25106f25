import DepotServices
import HTTPTypes

/// The tus rules applied to a request's method and to the upload as the ledger records it.
extension UploadRules {
    /// Every request but OPTIONS must carry `Tus-Resumable: 1.0.0` (tus 1.0 "Tus-Resumable"; 412 otherwise).
    static func checkVersion(method: HTTPRequest.Method, tusResumable: String?) throws(UploadError) {
        guard method != .options else { return }
        guard isServedVersion(tusResumable) else { throw .unsupportedTusVersion(tusResumable) }
    }
}
