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
}

/// Decides the answer to `GET`/`HEAD /v1/bundles/{digest}` from the request head alone: grant check,
/// bundle lookup and RFC 9110 evaluation are all in memory and synchronous, so they run on the event loop.
///
/// Reads what ``BundleAccess`` reads (the grant, or an edge's secret), and the conditional and range fields.
struct BundleResponder: Sendable {
    let index: BundleIndex
    let access: BundleAccess
    let rangeLimits: RangeLimits

    func answer(_ head: HTTPRequestHead, target: BundleRequestTarget, now: Int64, grantCache: inout GrantCache)
        -> BundleAnswer
    {
        let method: RequestMethod
        switch head.method {
        case .GET: method = .get
        case .HEAD: method = .head
        default:
            return .error(.methodNotAllowed("bundles answer GET and HEAD only"), extraHeaders: [("Allow", "GET, HEAD")])
        }
        guard target.hasWellFormedDigest else {
            return .error(.notFound("no bundle at this address: a bundle is named by the lowercase hex SHA-256 of its bytes"), extraHeaders: [])
        }
        let digest = String(target.digest)
        let requester: BundleAccess.Requester
        switch access.decide(
            head.headers, grantParameter: target.grantParameter, digest: digest, now: now, allowEdge: true,
            grantCache: &grantCache)
        {
        case .admitted(let admitted): requester = admitted
        case .refused(let error, let extraHeaders): return .error(error, extraHeaders: extraHeaders)
        }
        guard let bundle = index.bundle(digest: digest) else {
            return .error(.notFound("no bundle with this digest"), extraHeaders: [])
        }
        if !Self.hasConditionalFields(head.headers) {
            return .complete(bundle, requester: requester)
        }
        var conditions = RequestConditions(method: method)
        for field in head.headers { conditions.add(name: field.name, value: field.value) }
        let plan = ConditionalEvaluator.plan(
            for: conditions, representation: bundle.representation, now: now, limits: rangeLimits,
            boundary: "depot-" + digest.prefix(32))
        return .bytes(plan, bundle, requester: requester)
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

    /// The token of a `Bearer` credential (RFC 6750 §2.1; the scheme is case-insensitive).
    static func bearerToken(_ value: String) -> String? {
        var utf8 = Substring(value).utf8
        utf8 = utf8.drop { $0 == 0x20 || $0 == 0x09 }
        guard utf8.count > 7 else { return nil }
        let scheme = utf8.prefix(6)
        guard zip(scheme, "bearer".utf8).allSatisfy({ ($0 | 0x20) == $1 }), utf8.dropFirst(6).first == 0x20 else {
            return nil
        }
        let token = utf8.dropFirst(7).drop { $0 == 0x20 }.prefix { $0 != 0x20 && $0 != 0x09 }
        return token.isEmpty ? nil : String(Substring(token))
    }
}
