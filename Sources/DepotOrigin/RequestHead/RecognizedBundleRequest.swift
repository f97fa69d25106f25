import DepotHTTP

/// A bundle request read straight from its bytes by ``RequestHeadScanner``, with no `HTTPRequestHead` built:
/// `GET` or `HEAD` of an origin-form `/v1/bundles/...` target over HTTP/1.1, one `Host`, no body, and no field
/// the answer could depend on beyond the ones kept here.
///
/// A class: the connection's state machine queues and hands it on in its actions, which stay one word each.
final class RecognizedBundleRequest {
    /// Whether the method is `HEAD` (else `GET`).
    let isHead: Bool
    /// The request target.
    let target: BundleRequestTarget
    /// Whether the connection stays open after the answer (no `Connection: close`).
    let keepAlive: Bool
    /// The token of the request's one `Authorization` field when it is a `Bearer` credential; nil without one, or
    /// for another scheme (the query's grant is then read, as for a request without the field).
    let bearerToken: String?
    /// The conditional and range fields (RFC 9110 §13.1, §14.2); nil when the request has none, or only `plainRange`.
    let conditions: RequestConditions?
    /// The range of a GET whose one conditional field is `Range: bytes=first-last` (first ≤ last), not yet held
    /// against the bundle's size.
    let plainRange: ByteRange?
    /// The request's `X-Request-Id` when it is a valid id (see ``RequestId``); nil otherwise.
    let requestId: String?

    /// A request as read.
    init(
        isHead: Bool, target: BundleRequestTarget, keepAlive: Bool, bearerToken: String?,
        conditions: RequestConditions?, plainRange: ByteRange? = nil, requestId: String? = nil
    ) {
        self.requestId = requestId
        self.isHead = isHead
        self.target = target
        self.keepAlive = keepAlive
        self.bearerToken = bearerToken
        self.conditions = conditions
        self.plainRange = plainRange
    }
}
