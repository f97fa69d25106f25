/// The products Depot sells and every published content version with its bundle.
///
/// A catalog is an immutable value: publishing makes a new catalog. Lookups used on the byte path
/// (by digest) are dictionary reads.
public struct Catalog: Sendable {
    /// Products in configuration order.
    public let products: [Product]
    /// The published versions (current, or scheduled for later), sorted by product, content, then
    /// publication time: what the lists and redeems choose from.
    public let versions: [ContentVersion]
    /// Versions that were published and then replaced (by a newer one or by a rollback): no longer offered,
    /// still served by digest so that grants handed out for them keep working.
    public let superseded: [ContentVersion]
    /// Published versions offered to part of the buyers (a rollout) or to test purchases (beta), beside the
    /// current versions in `versions`, which everyone else keeps: what `currentContents(of:at:for:)` adds.
    public let limited: [LimitedRelease]
    /// Delta bundles from older versions of a content to newer ones.
    public let deltas: [DeltaBundle]
    /// When the catalog last changed through a publish, a rollback or a product edit (seconds since 1970),
    /// or 0: the lists' Last-Modified is never older than this.
    public let changedAt: Int64
    /// The digests of versions this instance cannot serve now (their bundle is neither on this disk nor fetchable
    /// from the object store): the versions stay in the catalog, listed and entitled, but a redeem that would offer
    /// one is refused for a while rather than answered with less than the purchase entitles.
    public let unservable: Set<BundleDigest>
    private let versionsByDigest: [BundleDigest: ContentVersion]
    private let productsById: [String: Product]
    private let limitedProducts: Set<String>

    /// Creates a catalog; versions are sorted so the catalog's listings do not depend on load order.
    public init(
        products: [Product], versions: [ContentVersion], superseded: [ContentVersion] = [], limited: [LimitedRelease] = [],
        deltas: [DeltaBundle] = [], changedAt: Int64 = 0, unservable: Set<BundleDigest> = []
    ) {
        self.products = products
        self.unservable = unservable
        self.deltas = deltas
        self.changedAt = changedAt
        let order: (ContentVersion, ContentVersion) -> Bool = {
            ($0.productId, $0.contentId, $0.publishedAt, $0.version)
                < ($1.productId, $1.contentId, $1.publishedAt, $1.version)
        }
        self.versions = versions.sorted(by: order)
        self.superseded = superseded.sorted(by: order)
        // Beta after production, so that a test purchase offered both takes the beta version.
        self.limited = limited.sorted {
            ($0.release.channel == .beta ? 1 : 0, $0.version.productId, $0.version.contentId, $0.version.publishedAt, $0.version.version)
                < (
                    $1.release.channel == .beta ? 1 : 0, $1.version.productId, $1.version.contentId, $1.version.publishedAt,
                    $1.version.version
                )
        }
        self.limitedProducts = Set(limited.map(\.version.productId))
        var byDigest: [BundleDigest: ContentVersion] = [:]
        for version in self.superseded { byDigest[version.digest] = version }
        for release in self.limited { byDigest[release.version.digest] = release.version }
        for version in self.versions { byDigest[version.digest] = version }
        self.versionsByDigest = byDigest
        var byId: [String: Product] = [:]
        for product in products { byId[product.id] = product }
        self.productsById = byId
    }

    /// The empty catalog.
    public static let empty = Catalog(products: [], versions: [])

    /// The version whose bundle has this digest, if any.
    public func version(digest: BundleDigest) -> ContentVersion? {
        versionsByDigest[digest]
    }

    /// Whether this instance can serve the bundle `digest` now (see ``unservable``).
    public func isServable(_ digest: BundleDigest) -> Bool {
        !unservable.contains(digest)
    }

    /// The delta that turns `baseVersion` of a product's content into `target`, if one was built.
    public func delta(productId: String, contentId: String, from baseVersion: String, to target: String) -> DeltaBundle? {
        deltas.first {
            $0.productId == productId && $0.contentId == contentId && $0.baseVersion == baseVersion
                && $0.targetVersion == target
        }
    }

    /// The size of a bundle, full or delta, by digest.
    public func bundleSize(digest: BundleDigest) -> Int64? {
        version(digest: digest)?.size ?? deltas.first { $0.digest == digest }?.size
    }

    /// The product with this identifier, if configured.
    public func product(id: String) -> Product? {
        productsById[id]
    }

    /// The current version of each content of a product at `now` (seconds since 1970): the latest one
    /// whose `publishedAt` has come, per content id, ordered by publication time. A version scheduled for
    /// later hides nothing: until its time the one before it stays current.
    public func currentContents(of productId: String, at now: Int64) -> [ContentVersion] {
        var latest: [String: ContentVersion] = [:]
        for version in versions where version.productId == productId && version.publishedAt <= now {
            if let known = latest[version.contentId], known.publishedAt > version.publishedAt { continue }
            latest[version.contentId] = version
        }
        return latest.values.sorted { ($0.publishedAt, $0.contentId) < ($1.publishedAt, $1.contentId) }
    }

    /// The contents of a product `audience` is offered at `now`: the current version of each content
    /// (`currentContents(of:at:)`), where a limited release it receives (`ReleaseAudience.receives`) and that is
    /// newer than the current version takes that content's place, or adds a content; nil: everyone's current
    /// versions.
    public func currentContents(of productId: String, at now: Int64, for audience: ReleaseAudience?) -> [ContentVersion] {
        var contents = currentContents(of: productId, at: now)
        guard let audience, limitedProducts.contains(productId) else { return contents }
        var changed = false
        for limited in limited
        where limited.version.productId == productId && limited.version.publishedAt <= now
            && audience.receives(limited.version, as: limited.release)
        {
            if let index = contents.firstIndex(where: { $0.contentId == limited.version.contentId }) {
                let current = contents[index]
                guard (limited.version.publishedAt, limited.version.version) > (current.publishedAt, current.version) else { continue }
                changed = true
                contents[index] = limited.version
            } else {
                changed = true
                contents.append(limited.version)
            }
        }
        guard changed else { return contents }
        return contents.sorted { ($0.publishedAt, $0.contentId) < ($1.publishedAt, $1.contentId) }
    }

    /// Whether a product has a version released to part of the buyers or to test purchases.
    public func hasLimitedRelease(productId: String) -> Bool {
        limitedProducts.contains(productId)
    }

    /// Whether a product has a halted rollout: only then does what a purchase was offered before decide what it
    /// is offered now (`ReleaseAudience.offered`).
    public func hasHaltedRollout(productId: String) -> Bool {
        limitedProducts.contains(productId) && limited.contains { $0.version.productId == productId && $0.release.halted }
    }

    /// The limited release of a version, if it is one.
    public func limitedRelease(digest: BundleDigest) -> LimitedRelease? {
        limited.first { $0.version.digest == digest }
    }

    /// When a content was first published (its issue date), whatever version is current: a subscription
    /// period entitles an issue by this date, so a corrected issue stays with the period it appeared in.
    public func firstPublishedAt(productId: String, contentId: String) -> Int64? {
        (versions + superseded + limited.map(\.version)).lazy.filter { $0.productId == productId && $0.contentId == contentId }.map(
            \.publishedAt
        ).min()
    }

    /// The latest publication time at or before `now`, or nil when nothing is published yet; never older than
    /// the catalog's last change, so a rollback to an older version moves it forward too.
    public func lastPublishedAt(at now: Int64) -> Int64? {
        let published = versions.lazy.map(\.publishedAt).filter { $0 <= now }.max()
        guard changedAt > 0, changedAt <= now else { return published }
        return max(published ?? changedAt, changedAt)
    }

    /// The earliest publication time after `now`: when what the catalog shows next changes.
    public func nextPublication(after now: Int64) -> Int64? {
        versions.lazy.map(\.publishedAt).filter { $0 > now }.min()
    }
}
