import DepotHTTP

/// A bundle request read straight from its bytes by ``RequestHeadScanner``, with no `HTTPRequestHead` built:
/// `GET` or `HEAD` of an origin-form `/v1/bundles/...` target over HTTP/1.1, one `Host`, no body, and no field
/// the answer could depend on beyond the ones kept here.
struct RecognizedBundleRequest {
    /// Whether the method is `HEAD` (else `GET`).
    var isHead: Bool
    /// The request target.
    var target: BundleRequestTarget
    /// Whether the connection stays open after the answer (no `Connection: close`).
    var keepAlive: Bool
    /// The value of the request's one `Authorization` field; nil without one.
    var authorization: String?
    /// The conditional and range fields (RFC 9110 §13.1, §14.2); nil when the request has none.
    var conditions: RequestConditions?
}
