import DepotServices
/// How Depot answers as the origin of CDN edges: the caching and purge-tag fields on bundles, the grant
/// check's cache lifetime, and the shared secrets that let an edge fill its cache without a grant.
package struct EdgeSettings: Sendable {
    /// The field that tells CDNs (and only them) how long to keep a bundle.
    package enum LifetimeHeader: String, Sendable, CaseIterable {
        /// RFC 9213's targeted field, read by most CDNs.
        case cdnCacheControl = "CDN-Cache-Control"
        /// The older Edge Architecture field (Fastly, Akamai).
        case surrogateControl = "Surrogate-Control"
    }

    /// The edge lifetime field sent with bundles, or nil for none.
    package var lifetimeHeader: LifetimeHeader?
    /// Seconds an edge may keep a bundle (the value of `max-age` in the lifetime field).
    package var lifetimeSeconds: Int64
    /// The field carrying purge tags (`Surrogate-Key`, `Cache-Tag`, ...), or nil for none.
    package var purgeTagHeader: String?
    /// What separates tags in that field: a space (`Surrogate-Key`) or a comma (`Cache-Tag`).
    package var purgeTagSeparator: String
    /// Seconds an edge may keep an answer of `GET /v1/grants/check` (0: not at all); a refunded purchase's
    /// grants stop working at an edge at most this long after they stop at the origin.
    package var grantCheckCacheSeconds: Int64
    /// The request field an edge presents its shared secret in.
    package var fillSecretHeader: String
    /// Accepted shared secrets (none: edge fill is off; two while one is being rotated out).
    package var fillSecrets: [String]
    /// Where the purge tags of changes are sent, or nil for nowhere.
    package var purgeHook: PurgeHookSettings?

    /// Settings with these values.
    package init(
        lifetimeHeader: LifetimeHeader?, lifetimeSeconds: Int64, purgeTagHeader: String?, purgeTagSeparator: String,
        grantCheckCacheSeconds: Int64, fillSecretHeader: String, fillSecrets: [String], purgeHook: PurgeHookSettings? = nil
    ) {
        self.lifetimeHeader = lifetimeHeader
        self.lifetimeSeconds = lifetimeSeconds
        self.purgeTagHeader = purgeTagHeader
        self.purgeTagSeparator = purgeTagSeparator
        self.grantCheckCacheSeconds = grantCheckCacheSeconds
        self.fillSecretHeader = fillSecretHeader
        self.fillSecrets = fillSecrets
        self.purgeHook = purgeHook
    }

    /// Edge settings when the configuration says nothing: `CDN-Cache-Control` for a year, `Surrogate-Key`
    /// tags separated by spaces, grant checks cached for 10 seconds, edge fill off.
    package static let defaults = EdgeSettings(
        lifetimeHeader: .cdnCacheControl, lifetimeSeconds: 31_536_000, purgeTagHeader: "Surrogate-Key",
        purgeTagSeparator: " ", grantCheckCacheSeconds: 10, fillSecretHeader: "X-Depot-Edge-Secret", fillSecrets: [])

    /// Most secrets accepted at once: the current one and the one being rotated out.
    package static let maximumFillSecrets = 2
    /// Shortest accepted secret, in characters.
    package static let minimumFillSecretLength = 32
    /// Longest grant check cache lifetime: a refund must reach the edges soon.
    package static let maximumGrantCheckCacheSeconds: Int64 = 300
}
