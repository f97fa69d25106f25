import Metrics

/// The `depot_http_requests_total` counters of the answers written below Hummingbird (bundles, the grant check,
/// and the 400, 408, 414 and 431 given before a request was read), resolved once per label set and event loop
/// and then only incremented: counting an answer costs no lookup by name, no lock and no allocation.
///
/// Routes are named as the routed path names them (the OpenAPI path); answers to requests that were never read
/// count under `unmatched` with method `other`. One per event loop: it is used on its loop only.
struct BytePathRequestCounters {
    /// The route an answer belongs to.
    enum Route: Int, CaseIterable {
        case bundle, grantCheck, unmatched

        /// The `route` label.
        var label: String {
            switch self {
            case .bundle: "/v1/bundles/{digest}"
            case .grantCheck: "/v1/grants/check"
            case .unmatched: "unmatched"
            }
        }
    }

    /// The method an answer was for.
    enum Method: Int, CaseIterable {
        case get, head, other

        /// The `method` label.
        var label: String {
            switch self {
            case .get: "GET"
            case .head: "HEAD"
            case .other: "other"
            }
        }
    }

    /// The statuses the byte path answers with; any other status counts in a slot of its own, looked up.
    private static let statuses = [200, 204, 206, 304, 400, 401, 403, 404, 405, 408, 412, 414, 416, 431, 503]

    private var slots: [Counter?] = Array(
        repeating: nil, count: Route.allCases.count * Method.allCases.count * statuses.count)
    private var others: [String: Counter] = [:]

    /// Counts one answer with `status`, to a `method` request on `route`.
    mutating func count(_ route: Route, _ method: Method, status: Int, metrics: BytePathMetrics) {
        guard let index = Self.statuses.firstIndex(of: status) else {
            let key = "\(route.rawValue) \(method.rawValue) \(status)"
            if let counter = others[key] { return counter.increment() }
            let counter = Self.counter(route, method, status: status, metrics: metrics)
            others[key] = counter
            return counter.increment()
        }
        let slot = (route.rawValue * Method.allCases.count + method.rawValue) * Self.statuses.count + index
        if let counter = slots[slot] { return counter.increment() }
        let counter = Self.counter(route, method, status: status, metrics: metrics)
        slots[slot] = counter
        counter.increment()
    }

    private static func counter(_ route: Route, _ method: Method, status: Int, metrics: BytePathMetrics) -> Counter {
        Counter(
            label: metrics.requestsLabel,
            dimensions: [("route", route.label), ("method", method.label), ("status", String(status))],
            factory: metrics.factory)
    }
}
