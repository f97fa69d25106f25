import HTTPTypes
import Hummingbird
import NIOCore

/// Google's error bodies: `{"error": {"code", "message", "status", "errors": [{"message", "domain", "reason"}]}}`
/// (`errors` only when there is a reason), and the answers built from them.
extension GooglePlayDouble {
    /// 400 `invalid`, for an unknown purchase token or one held for another product or kind.
    static var invalidValue: Response {
        googleError(.badRequest, "Invalid Value", status: "INVALID_ARGUMENT", reason: "invalid")
    }

    /// 400 `invalidPurchaseState`, for acknowledging or consuming a purchase that cannot be.
    static var invalidPurchaseState: Response {
        googleError(
            .badRequest, "The purchase is not in a valid state to perform the desired operation.", status: "FAILED_PRECONDITION",
            reason: "invalidPurchaseState")
    }

    /// 404 `applicationNotFound`, for another package name than the double's.
    static var applicationNotFound: Response {
        googleError(
            .notFound, "No application was found for the given package name.", status: "NOT_FOUND", reason: "applicationNotFound")
    }

    /// 404 for a path the API does not have.
    static var urlNotFound: Response {
        googleError(.notFound, "The requested URL was not found.", status: "NOT_FOUND")
    }

    /// What a planned failure answers: 429 `RESOURCE_EXHAUSTED`, 503 `UNAVAILABLE`, or another 5xx `INTERNAL`.
    static func failureAnswer(status code: Int) -> Response {
        let status = HTTPResponse.Status(code: code)
        switch code {
        case 429:
            return googleError(
                status, "Resource has been exhausted (e.g. check quota).", status: "RESOURCE_EXHAUSTED", reason: "rateLimitExceeded")
        case 503:
            return googleError(status, "The service is currently unavailable.", status: "UNAVAILABLE", reason: "backendError")
        default:
            return googleError(status, "Internal error encountered.", status: "INTERNAL", reason: "backendError")
        }
    }

    /// A Google error body with `message`, the canonical `status` name and, when given, one `errors` entry.
    static func googleError(_ code: HTTPResponse.Status, _ message: String, status: String, reason: String? = nil) -> Response {
        let quotedMessage = GooglePlayDoubleSetup.quoted(message)
        var error = #"{"code": \#(code.code), "message": \#(quotedMessage), "status": "\#(status)""#
        if let reason {
            error += #", "errors": [{"message": \#(quotedMessage), "domain": "global", "reason": "\#(reason)"}]"#
        }
        return json(code, #"{"error": \#(error)}}"#)
    }

    /// A JSON answer.
    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=UTF-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A JSON object from members already encoded, in order; nil values are left out.
    static func object(_ members: [(String, String?)]) -> String {
        let shown = members.compactMap { name, value in value.map { "\"\(name)\": \($0)" } }
        return "{" + shown.joined(separator: ", ") + "}"
    }
}
