import DepotHTTP
import NIOHTTP1

/// A bundle request read straight from its bytes by ``RequestHeadScanner``, with no `HTTPRequestHead` built:
/// `GET` or `HEAD` of an origin-form `/v1/bundles/...` target over HTTP/1.1, one `Host`, no body, and no field
/// the answer could depend on beyond the ones kept here.
///
/// A class: the connection's state machine queues and hands it on in its actions, which stay one word each. It holds
/// what the answer reads as the ``BundleRequestFields`` the answer is decided by, built once as the request was read:
/// the answer borrows them, with no copy of each field and no release of each copy afterwards.
final class RecognizedBundleRequest {
    /// What the answer reads of the request.
    let fields: BundleRequestFields
    /// Whether the connection stays open after the answer (no `Connection: close`).
    let keepAlive: Bool

    /// Whether the method is `HEAD` (else `GET`).
    var isHead: Bool {
        if case .HEAD = fields.method { true } else { false }
    }
    /// The request target.
    var target: BundleRequestTarget { fields.target }
    /// The token of the request's one `Authorization` field when it is a `Bearer` credential; nil without one, or
    /// for another scheme (the query's grant is then read, as for a request without the field).
    var bearerToken: String? { fields.access.bearerToken }
    /// The conditional and range fields (RFC 9110 §13.1, §14.2); nil when the request has none, or only `plainRange`.
    var conditions: RequestConditions? { fields.conditions }
    /// The range of a GET whose one conditional field is `Range: bytes=first-last` (first ≤ last), not yet held
    /// against the bundle's size.
    var plainRange: ByteRange? { fields.plainRange }
    /// The request's `X-Request-Id` when it is a valid id (see ``RequestId``); nil otherwise.
    var requestId: String? { fields.requestId }

    /// A request as read.
    init(
        isHead: Bool, target: BundleRequestTarget, keepAlive: Bool, bearerToken: String?,
        conditions: RequestConditions?, plainRange: ByteRange? = nil, requestId: String? = nil
    ) {
        fields = BundleRequestFields(
            method: isHead ? .HEAD : .GET, target: target, bearerToken: bearerToken, conditions: conditions,
            plainRange: plainRange, requestId: requestId)
        self.keepAlive = keepAlive
    }
}
