import DepotCore
import DepotHTTP
import DepotTrust
import NIOHTTP1

/// What to answer to one bundle request: an error, or a plan for the bundle's bytes.
enum BundleAnswer {
    /// An error with its JSON body and any extra header fields.
    case error(DepotError, extraHeaders: [(String, String)])
    /// The bundle's bytes (or a 304/412/416) as DepotHTTP planned them, for the grant's transaction
    /// (empty for a grant made by `depot dev grant`).
    case bytes(ResponsePlan, ServedBundle, transactionId: String)
}

/// Decides the answer to `GET`/`HEAD /v1/bundles/{digest}` from the request head alone: grant check,
/// bundle lookup and RFC 9110 evaluation are all in memory and synchronous, so they run on the event loop.
///
/// Reads `Authorization` (Bearer) or the `grant` query parameter, and the conditional and range fields.
struct BundleResponder: Sendable {
    /// Cache-Control of every bundle: bundles never change (DESIGN.md, "Grants, trust and the edge").
    static let cacheControl = "public, max-age=31536000, immutable"
    /// Media type of bundles.
    static let contentType = "application/zip"

    let index: BundleIndex
    let grants: GrantAuthority
    let revocations: RevocationList
    let rangeLimits: RangeLimits

    func answer(_ head: HTTPRequestHead, target: BundleRequestTarget, now: Int64) -> BundleAnswer {
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
        guard let token = grantToken(head, target: target) else {
            return .error(
                DepotError(status: 401, code: "grant-required", message: "a grant is required: send Authorization: Bearer GRANT or ?grant=GRANT"),
                extraHeaders: [("WWW-Authenticate", "Bearer realm=\"depot\"")])
        }
        let transactionId: String
        do {
            let grant = try grants.verify(token, digest: digest, now: now)
            transactionId = grant.transactionId
            if !grant.transactionId.isEmpty && revocations.isRevoked(grantField: grant.transactionId) {
                return .error(
                    DepotError(status: 403, code: "grant-revoked", message: "the purchase behind this grant was refunded or revoked"),
                    extraHeaders: [])
            }
        } catch {
            return .error(DepotError(status: 403, code: error.code.description, message: error.message), extraHeaders: [])
        }
        guard let bundle = index.bundle(digest: digest) else {
            return .error(.notFound("no bundle with this digest"), extraHeaders: [])
        }
        let representation = RepresentationMetadata(
            size: bundle.version.size, entityTag: digest, lastModified: bundle.version.publishedAt,
            contentType: Self.contentType, cacheControl: Self.cacheControl)
        let conditions = RequestConditions(method: method, headers: head.headers)
        let plan = ConditionalEvaluator.plan(
            for: conditions, representation: representation, now: now, limits: rangeLimits,
            boundary: "depot-" + digest.prefix(32))
        return .bytes(plan, bundle, transactionId: transactionId)
    }

    /// The grant from a single `Authorization: Bearer` field, else from the query.
    private func grantToken(_ head: HTTPRequestHead, target: BundleRequestTarget) -> String? {
        let authorization = head.headers["authorization"]
        if authorization.count == 1, let token = Self.bearerToken(authorization[0]) {
            return token
        }
        return target.grantParameter
    }

    /// The token of a `Bearer` credential (RFC 6750 §2.1; the scheme is case-insensitive).
    static func bearerToken(_ value: String) -> String? {
        let trimmed = value.drop { $0 == " " || $0 == "\t" }
        guard trimmed.count > 7, trimmed.prefix(6).lowercased() == "bearer", trimmed.dropFirst(6).first == " " else {
            return nil
        }
        let token = trimmed.dropFirst(7).drop { $0 == " " }.prefix { $0 != " " && $0 != "\t" }
        return token.isEmpty ? nil : String(token)
    }
}
