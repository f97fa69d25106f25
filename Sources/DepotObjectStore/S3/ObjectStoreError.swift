/// Why an object store request failed, typed by what the caller can do about it.
public enum ObjectStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store answered with an S3 error: its HTTP status, its code (`NoSuchKey`, `PreconditionFailed`,
    /// `SignatureDoesNotMatch`, ...; for a HEAD, which has no body, a code named after the status), its message and
    /// request id.
    case service(status: Int, code: String, message: String, requestId: String?)
    /// The store could not be reached, or the connection failed mid-answer.
    case transport(String)
    /// The store answered with something that is not S3 (an unreadable XML body, a missing header).
    case invalidAnswer(String)
    /// An object larger than the caller accepts (`maxBytes`).
    case tooLarge(limit: Int)
    /// A local file could not be read or written.
    case localFile(String)
    /// The settings cannot address a store (an endpoint that is not `http(s)://host[:port]`, an empty bucket).
    case configuration(String)

    /// The S3 code of a `service` error, or nil.
    public var code: String? {
        if case .service(_, let code, _, _) = self { return code }
        return nil
    }

    /// The HTTP status of a `service` error, or nil.
    public var status: Int? {
        if case .service(let status, _, _, _) = self { return status }
        return nil
    }

    /// Whether the store said the object (or upload) does not exist.
    public var isNotFound: Bool {
        switch code {
        case "NoSuchKey", "NotFound", "NoSuchUpload": true
        default: false
        }
    }

    /// Whether another attempt may succeed: a transport failure, a 5xx, `SlowDown`, or a 429.
    public var isRetryable: Bool {
        switch self {
        case .transport: true
        case .service(let status, let code, _, _): status >= 500 || status == 429 || code == "SlowDown" || code == "RequestTimeout"
        case .invalidAnswer, .tooLarge, .localFile, .configuration: false
        }
    }

    /// One line for logs.
    public var description: String {
        switch self {
        case .service(let status, let code, let message, let requestId):
            "object store answered \(status) \(code)\(message.isEmpty ? "" : ": \(message)")"
                + (requestId.map { " (request \($0))" } ?? "")
        case .transport(let message): "object store unreachable: \(message)"
        case .invalidAnswer(let message): "object store answer unreadable: \(message)"
        case .tooLarge(let limit): "object larger than \(limit) bytes"
        case .localFile(let message): "local file: \(message)"
        case .configuration(let message): "object store settings: \(message)"
        }
    }

    /// The code S3 gives a status when the answer has no body (HEAD).
    static func code(forStatus status: Int) -> String {
        switch status {
        case 304: "NotModified"
        case 400: "BadRequest"
        case 403: "Forbidden"
        case 404: "NotFound"
        case 412: "PreconditionFailed"
        case 416: "InvalidRange"
        case 503: "SlowDown"
        default: "HTTP\(status)"
        }
    }
}
