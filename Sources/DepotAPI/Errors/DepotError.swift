/// An error that reaches a client: a stable code from `ErrorCode`'s table, a message for people, and the
/// HTTP status the table gives the code.
///
/// Rendered by `ErrorAnswer` as `{"error": {"code": "...", "message": "..."}}`. Messages never carry tokens,
/// keys or server paths.
package struct DepotError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code, e.g. `grant-expired`.
    package let code: String
    /// A message for people.
    package let message: String
    /// The HTTP status the error is answered with.
    package let status: Int
    /// Seconds after which a retry may succeed (`Retry-After`), for 429 and 503 answers.
    package let retryAfterSeconds: Int64?

    /// An error with `code`'s status from the table; `retryAfterSeconds` defaults to the code's own.
    package init(_ code: ErrorCode, _ message: String, retryAfterSeconds: Int64? = nil) {
        self.code = code.rawValue
        self.status = code.status
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds ?? code.defaultRetryAfterSeconds
    }

    /// `code: message`.
    package var description: String { "\(code): \(message)" }
}

extension DepotError {
    /// 404 for a route or resource that does not exist.
    package static func notFound(_ message: String) -> DepotError { DepotError(.notFound, message) }

    /// 400 for a request Depot cannot read.
    package static func badRequest(_ message: String) -> DepotError { DepotError(.badRequest, message) }

    /// 405 for a method the route does not allow.
    package static func methodNotAllowed(_ message: String) -> DepotError { DepotError(.methodNotAllowed, message) }
}
