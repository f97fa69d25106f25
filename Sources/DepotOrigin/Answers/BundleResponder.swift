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
}
