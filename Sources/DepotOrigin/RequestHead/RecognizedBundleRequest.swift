import DepotHTTP
import NIOHTTP1

/// A bundle request read straight from its bytes by ``RequestHeadScanner``, with no `HTTPRequestHead` built:
/// `GET` or `HEAD` of an origin-form `/v1/bundles/...` target over HTTP/1.1, one `Host`, no body, and no field
/// the answer could depend on beyond the ones kept here.
///
/// A class: the connection's state machine queues and hands it on in its actions, which stay one word each. It is the
/// ``BundleRequestFields`` its answer is decided by (the target, the conditional fields, the plain range, the request
/// id), built once as the request was read and read where they are.
final class RecognizedBundleRequest: BundleRequestFields {
    /// Whether the connection stays open after the answer (no `Connection: close`).
    let keepAlive: Bool

    /// Whether the method is `HEAD` (else `GET`).
    var isHead: Bool {
        if case .HEAD = method { true } else { false }
    }
    /// The token of the request's one `Authorization` field when it is a `Bearer` credential; nil without one, or
    /// for another scheme (the query's grant is then read, as for a request without the field).
    var bearerToken: String? { access.bearerToken }

    /// A request as read.
    init(
        isHead: Bool, target: BundleRequestTarget, keepAlive: Bool, bearerToken: String?,
        conditions: RequestConditions?, plainRange: ByteRange? = nil, requestId: String? = nil
    ) {
        self.keepAlive = keepAlive
        super.init(
            method: isHead ? .HEAD : .GET, target: target, bearerToken: bearerToken, conditions: conditions,
            plainRange: plainRange, requestId: requestId)
    }
}
