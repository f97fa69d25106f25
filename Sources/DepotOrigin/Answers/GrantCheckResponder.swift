import DepotAPI
import DepotCore
import NIOHTTP1

/// What to answer to one grant check.
enum GrantCheckAnswer: Equatable {
    /// 204: the grant opens the bundle; an edge may keep this answer `cacheSeconds`. `purgeTag` names the
    /// purchase (`transaction:...`), so that its revocation can purge the kept answer.
    case allowed(cacheSeconds: Int64, purgeTag: HeaderPair?)
    /// 401 or 403 (or 400/405 for a request that is not a check), with Depot's error; an edge may keep a
    /// refusal `cacheSeconds` (0 for answers about the check request itself).
    case refused(DepotError, extraHeaders: [HeaderPair], cacheSeconds: Int64)

    /// One header field.
    struct HeaderPair: Equatable {
        var name: String
        var value: String
    }
}

/// Decides `GET /v1/grants/check`, the subrequest an edge (nginx's `auth_request`) makes before serving a
/// bundle, cached or not: is the grant the original request carries good for the bundle it names?
///
/// Reads `X-Original-URI` (the original request target: `/v1/bundles/{digest}` and its query), the grant from
/// `Authorization: Bearer` or the original target's `grant` parameter, in that order. Decided in memory like
/// a bundle request (the grant's MAC and expiry, the revocation list), never with the ledger. An edge secret
/// is not looked at: the check is about the end user's grant.
struct GrantCheckResponder: Sendable {
    /// The path of the check.
    static let path = "/v1/grants/check"
    /// The request field holding the original request target.
    static let originalURIField = "x-original-uri"

    let access: BundleAccess
    /// Longest time an edge may keep an answer (0: not at all).
    let cacheSeconds: Int64
    /// The purge tag naming a transaction's grant checks (the `edge.purgeTagHeader` field and its value), or nil
    /// when the server sends no purge tags.
    var purgeTag: (@Sendable (_ transactionId: String) -> GrantCheckAnswer.HeaderPair)? = nil

    /// Whether a request target is the check (origin or absolute form; a query is ignored).
    static func isCheck(uri: String) -> Bool {
        let target = BundleRequestTarget.pathAndQuery(of: Substring(uri).utf8)
        guard target.starts(with: path.utf8) else { return false }
        let rest = target.dropFirst(path.utf8.count)
        return rest.isEmpty || rest.first == 0x3F
    }

    func answer(_ head: HTTPRequestHead, now: Int64, grantCache: inout GrantCache) -> GrantCheckAnswer {
        guard head.method == .GET || head.method == .HEAD else {
            return .refused(
                .methodNotAllowed("the grant check answers GET and HEAD only"),
                extraHeaders: [.init(name: "Allow", value: "GET, HEAD")], cacheSeconds: 0)
        }
        let originals = head.headers[Self.originalURIField]
        guard originals.count == 1 else {
            return .refused(
                .badRequest("send the original request target, /v1/bundles/{digest} with its query, in one X-Original-URI field"),
                extraHeaders: [], cacheSeconds: 0)
        }
        guard let target = BundleRequestTarget(uri: originals[0]), let digest = target.bundleDigest else {
            return .refused(
                DepotError(.notABundle, "no grant opens this address: it is not a bundle's"),
                extraHeaders: [], cacheSeconds: cacheSeconds)
        }
        switch access.decide(
            BundleAccess.Fields(head.headers, edgeSecretField: nil), grantParameter: target.grantParameter, digest: digest,
            now: now,
            allowEdge: false, grantCache: &grantCache)
        {
        case .admitted(.grant(let transactionId, let expiresAt)):
            // Never kept past the grant's own expiry; a grant without a transaction (`depot dev grant`) has no tag.
            let tag = transactionId.isEmpty ? nil : purgeTag?(transactionId)
            return .allowed(cacheSeconds: max(0, min(cacheSeconds, expiresAt - now)), purgeTag: tag)
        case .admitted(.edge):
            return .refused(.badRequest("an edge secret is no grant"), extraHeaders: [], cacheSeconds: 0)
        case .refused(let error, let extraHeaders):
            return .refused(
                error, extraHeaders: extraHeaders.map { .init(name: $0.0, value: $0.1) }, cacheSeconds: cacheSeconds)
        }
    }
}
