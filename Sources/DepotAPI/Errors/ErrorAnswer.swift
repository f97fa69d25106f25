/// The HTTP answer to a `DepotError`, decided in one place for every route: the status, Depot's JSON body,
/// and the header fields every error answer carries.
///
/// Writes `Content-Type: application/json`, `Content-Length`, `Cache-Control` (`no-store` unless told) and,
/// for an error with a retry time (429, and every 503), `Retry-After` in whole seconds, at least 1
/// (RFC 9110 §10.2.3). A HEAD answer has the same fields and no body (RFC 9110 §9.3.2). Whether the
/// connection stays open is for whoever writes the answer to say.
package struct ErrorAnswer: Sendable {
    /// The status code.
    package let status: Int
    /// The header fields, in order.
    package let fields: [(name: String, value: String)]
    /// The JSON body (empty for HEAD).
    package let body: String

    /// The answer to `error`, for a HEAD request when `isHead`, naming the request it answers when `requestId`
    /// is given (`error.requestId`).
    package init(_ error: DepotError, isHead: Bool = false, cacheControl: String = "no-store", requestId: String? = nil) {
        let json = error.jsonBody(requestId: requestId)
        var fields: [(name: String, value: String)] = [
            ("Content-Type", "application/json"),
            ("Content-Length", String(json.utf8.count)),
            ("Cache-Control", cacheControl),
        ]
        if let seconds = error.retryAfterSeconds { fields.append(("Retry-After", String(max(1, seconds)))) }
        status = error.status
        self.fields = fields
        body = isHead ? "" : json
    }
}
