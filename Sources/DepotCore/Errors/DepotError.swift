/// An error that reaches a client: a stable machine-readable code, a message for people, and the HTTP status.
///
/// Rendered as `{"error": {"code": "...", "message": "..."}}`. Messages never carry tokens, keys or server paths.
public struct DepotError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code, e.g. `grant-expired`.
    public let code: String
    /// A message for people.
    public let message: String
    /// The HTTP status the error is answered with.
    public let status: Int
    /// Seconds after which a retry may succeed (`Retry-After`), for 429 and 503 answers.
    public let retryAfterSeconds: Int64?

    /// Creates an error.
    public init(status: Int, code: String, message: String, retryAfterSeconds: Int64? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

extension DepotError {
    /// 404 for a route or resource that does not exist.
    public static func notFound(_ message: String) -> DepotError {
        DepotError(status: 404, code: "not-found", message: message)
    }

    /// 400 for a request Depot cannot read.
    public static func badRequest(_ message: String) -> DepotError {
        DepotError(status: 400, code: "bad-request", message: message)
    }

    /// 405 for a method the route does not allow.
    public static func methodNotAllowed(_ message: String) -> DepotError {
        DepotError(status: 405, code: "method-not-allowed", message: message)
    }
}
