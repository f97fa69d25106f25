import DepotAPI
import DepotCore
import DepotHTTP
import DepotTrust
import NIOHTTP1

/// Who may fetch a bundle: the holder of a grant for it whose purchase is not revoked, or (when configured)
/// an edge presenting a shared secret. Decided in memory: the grant's MAC, its expiry and the revocation
/// list, never the ledger.
///
/// Reads `Authorization` (Bearer), the `grant` query parameter and the edge secret's field.
struct BundleAccess: Sendable {
    /// Who is asking, once admitted.
    enum Requester: Equatable {
        /// A grant's holder; the grant's transaction (empty for a grant made by `depot dev grant`).
        case grant(transactionId: String, expiresAt: Int64)
        /// An edge filling its cache with the shared secret.
        case edge
    }

    /// The decision for one request.
    enum Decision {
        case admitted(Requester)
        case refused(DepotError, extraHeaders: [(String, String)])
    }

    let grants: GrantAuthority
    let revocations: RevocationList
    let edgeSecrets: EdgeSecrets

    /// The request fields access is decided by.
    typealias Fields = AccessFields

    /// The name of the field edges present their secret in, when edges may fill.
    var edgeSecretField: String? {
        edgeSecrets.isEnabled ? edgeSecrets.headerName : nil
    }

    /// Admits or refuses a request for bundle `digest`; `allowEdge` says whether the edge secret is looked at.
    func decide(
        _ fields: Fields, grantParameter: @autoclosure () -> String?, digest: BundleDigest, now: Int64,
        allowEdge: Bool, grantCache: inout GrantCache
    ) -> Decision {
        if allowEdge, edgeSecrets.isEnabled {
            let presented = fields.edgeSecrets
            if !presented.isEmpty {
                guard presented.count == 1, edgeSecrets.accepts(presented[0]) else {
                    return .refused(
                        DepotError(.edgeSecretRefused, "the edge secret is not one this server accepts"),
                        extraHeaders: [])
                }
                return .admitted(.edge)
            }
        }
        guard let token = Self.grantToken(fields, grantParameter: grantParameter()) else {
            return .refused(
                DepotError(.grantRequired, "a grant is required: send Authorization: Bearer GRANT or ?grant=GRANT"),
                extraHeaders: [("WWW-Authenticate", "Bearer realm=\"depot\"")])
        }
        do {
            let grant = try grantCache.verify(token, digest: digest, now: now, authority: grants)
            if !grant.transactionId.isEmpty && revocations.refuses(transactionId: grant.transactionId, digest: digest) {
                return .refused(
                    DepotError(.grantRevoked, "the purchase behind this grant was refunded or revoked"),
                    extraHeaders: [])
            }
            return .admitted(.grant(transactionId: grant.transactionId, expiresAt: grant.expiresAt))
        } catch {
            return .refused(DepotError(ErrorCode(grant: error.code), error.message), extraHeaders: [])
        }
    }

    /// The grant from a single `Authorization: Bearer` field, else from the query.
    static func grantToken(_ fields: Fields, grantParameter: @autoclosure () -> String?) -> String? {
        fields.bearerToken ?? grantParameter()
    }
}
