import DepotAPI
import DepotCore
import DepotHTTP
import NIOHTTP1

/// What to answer to one bundle request: an error, or a plan for the bundle's bytes.
enum BundleAnswer {
    /// An error with its JSON body and any extra header fields.
    case error(DepotError, extraHeaders: [(String, String)])
    /// The bundle's bytes (or a 304/412/416) as DepotHTTP planned them, for the admitted requester.
    case bytes(ResponsePlan, ServedBundle, requester: BundleAccess.Requester)
    /// The whole bundle for a request without conditional or range fields: the precomputed 200.
    case complete(ServedBundle, requester: BundleAccess.Requester)
    /// One range of the bundle, for a GET whose one conditional field is a `Range` leaving exactly that range:
    /// the single-part 206 DepotHTTP plans for it (`ConditionalEvaluator.singleRange`), head from prepared bytes.
    case range(ByteRange, ServedBundle, requester: BundleAccess.Requester)

    /// The bundle answered, unless the answer is an error.
    var bundle: ServedBundle? {
        switch self {
        case .error: nil
        case .bytes(_, let bundle, _), .complete(let bundle, _), .range(_, let bundle, _): bundle
        }
    }
}

/// What ``BundleResponder`` reads of a bundle request: from a head NIO's decoder made, or from the bytes
/// (``RecognizedBundleRequest``).
struct BundleRequestFields {
    /// The request method.
    var method: HTTPMethod
    /// The request target.
    var target: BundleRequestTarget
    /// The fields access is decided by.
    var access: BundleAccess.Fields
    /// The conditional and range fields; nil when the request has none (the precomputed 200 then answers it).
    var conditions: RequestConditions?
    /// The request's `X-Request-Id` when valid (see ``RequestId``).
    var requestId: String?
    /// A GET's one conditional field, `Range: bytes=first-last`, read from the bytes (see ``RecognizedBundleRequest``).
    var plainRange: ByteRange?

    /// The fields of a decoded head.
    init(_ head: HTTPRequestHead, target: BundleRequestTarget, edgeSecretField: String?) {
        method = head.method
        self.target = target
        access = BundleAccess.Fields(head.headers, edgeSecretField: edgeSecretField)
        requestId = RequestId.accepted(head.headers.first(name: "X-Request-Id"))
        if BundleResponder.hasConditionalFields(head.headers) {
            var conditions = RequestConditions(method: head.method == .HEAD ? .head : .get)
            for field in head.headers { conditions.add(name: field.name, value: field.value) }
            self.conditions = conditions
        }
    }

    /// The fields of a request read straight from its bytes (see ``RecognizedBundleRequest``).
    init(
        method: HTTPMethod, target: BundleRequestTarget, bearerToken: String?, conditions: RequestConditions?,
        plainRange: ByteRange?, requestId: String?
    ) {
        self.method = method
        self.target = target
        access = BundleAccess.Fields(bearerToken: bearerToken)
        self.conditions = conditions
        self.requestId = requestId
        self.plainRange = plainRange
    }
}

/// Decides the answer to `GET`/`HEAD /v1/bundles/{digest}` from the request head alone: grant check,
/// bundle lookup and RFC 9110 evaluation are all in memory and synchronous, so they run on the event loop.
///
/// Reads what ``BundleAccess`` reads (the grant, or an edge's secret), and the conditional and range fields.
struct BundleResponder: Sendable {
    let index: BundleIndex
    let access: BundleAccess
    let rangeLimits: RangeLimits

    /// The answer to one bundle request at `now`; `grantCache` and `bundleMemo` are the event loop's.
    func answer(
        _ request: BundleRequestFields, now: Int64, grantCache: inout GrantCache, bundleMemo: inout BundleIndex.Memo
    ) -> BundleAnswer {
        let method: RequestMethod
        switch request.method {
        case .GET: method = .get
        case .HEAD: method = .head
        default:
            return .error(.methodNotAllowed("bundles answer GET and HEAD only"), extraHeaders: [("Allow", "GET, HEAD")])
        }
        let target = request.target
        guard let digest = target.bundleDigest else {
            return .error(
                .notFound("no bundle at this address: a bundle is named by the lowercase hex SHA-256 of its bytes"), extraHeaders: [])
        }
        let requester: BundleAccess.Requester
        switch access.decide(
            request.access, grantParameter: target.grantParameter, digest: digest, now: now, allowEdge: true,
            grantCache: &grantCache)
        {
        case .admitted(let admitted): requester = admitted
        case .refused(let error, let extraHeaders): return .error(error, extraHeaders: extraHeaders)
        }
        guard let bundle = index.bundle(digest: digest, memo: &bundleMemo) else {
            return .error(.notFound("no bundle with this digest"), extraHeaders: [])
        }
        // What `singleRange` decides for this one field, without building it: a range starting inside the bundle.
        if method == .get, let asked = request.plainRange,
            let range = ByteRangeSet.resolve(first: asked.first, last: asked.last, size: bundle.representation.size)
        {
            return .range(range, bundle, requester: requester)
        }
        guard var conditions = request.conditions ?? request.plainRange.map(Self.conditions(asking:)) else {
            return .complete(bundle, requester: requester)
        }
        conditions.method = method
        if let range = ConditionalEvaluator.singleRange(for: conditions, representation: bundle.representation, limits: rangeLimits) {
            return .range(range, bundle, requester: requester)
        }
        let plan = ConditionalEvaluator.plan(
            for: conditions, representation: bundle.representation, now: now, limits: rangeLimits,
            boundary: "depot-" + digest.hex.prefix(32))
        return .bytes(plan, bundle, requester: requester)
    }

    /// The conditions of a request whose one field is `Range: bytes=first-last`.
    private static func conditions(asking range: ByteRange) -> RequestConditions {
        var conditions = RequestConditions(method: .get)
        conditions.add(name: "Range", value: "bytes=\(range.first)-\(range.last)")
        return conditions
    }

    /// Whether any field that can change the answer (RFC 9110 §13.1, §14.2) is present.
    static func hasConditionalFields(_ headers: HTTPHeaders) -> Bool {
        headers.contains { field in
            let name = field.name
            guard name.utf8.count >= 5, let first = name.utf8.first else { return false }
            // Only names starting with i/I or r/R can be If-* or Range.
            guard first | 0x20 == 0x69 || first | 0x20 == 0x72 else { return false }
            return name.caseInsensitiveEquals("range") || name.caseInsensitiveEquals("if-match")
                || name.caseInsensitiveEquals("if-none-match") || name.caseInsensitiveEquals("if-modified-since")
                || name.caseInsensitiveEquals("if-unmodified-since") || name.caseInsensitiveEquals("if-range")
        }
    }
}
