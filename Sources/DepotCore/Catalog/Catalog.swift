/// The products Depot sells and every published content version with its bundle.
///
/// A catalog is an immutable value: publishing makes a new catalog. Lookups used on the byte path
/// (by digest) are dictionary reads.
public struct Catalog: Sendable {
    /// Products in configuration order.
    public let products: [Product]
    /// Every known version, sorted by product, content, then publication time.
    public let versions: [ContentVersion]
    /// Delta bundles from older versions to the current one.
    public let deltas: [DeltaBundle]
    private let versionsByDigest: [String: ContentVersion]
    private let productsById: [String: Product]

    /// Creates a catalog; versions are sorted so the catalog's listings do not depend on load order.
    public init(products: [Product], versions: [ContentVersion], deltas: [DeltaBundle] = []) {
        self.products = products
        self.deltas = deltas
        self.versions = versions.sorted {
            ($0.productId, $0.contentId, $0.publishedAt, $0.version)
                < ($1.productId, $1.contentId, $1.publishedAt, $1.version)
        }
        var byDigest: [String: ContentVersion] = [:]
        for version in self.versions { byDigest[version.digest] = version }
        self.versionsByDigest = byDigest
        var byId: [String: Product] = [:]
        for product in products { byId[product.id] = product }
        self.productsById = byId
    }

    /// The empty catalog.
    public static let empty = Catalog(products: [], versions: [])

    /// The version whose bundle has this digest, if any.
    public func version(digest: String) -> ContentVersion? {
        versionsByDigest[digest]
    }

    /// The delta that turns `baseVersion` of a content into `target`, if one was built.
    public func delta(contentId: String, from baseVersion: String, to target: String) -> DeltaBundle? {
        deltas.first { $0.contentId == contentId && $0.baseVersion == baseVersion && $0.targetVersion == target }
    }

    /// The size of a bundle, full or delta, by digest.
    public func bundleSize(digest: String) -> Int64? {
        version(digest: digest)?.size ?? deltas.first { $0.digest == digest }?.size
    }

    /// The product with this identifier, if configured.
    public func product(id: String) -> Product? {
        productsById[id]
    }

    /// The current version of each content of a product: the latest published one per content id,
    /// ordered by publication time.
    public func currentContents(of productId: String) -> [ContentVersion] {
        var latest: [String: ContentVersion] = [:]
        for version in versions where version.productId == productId {
            if let known = latest[version.contentId], known.publishedAt > version.publishedAt { continue }
            latest[version.contentId] = version
        }
        return latest.values.sorted { ($0.publishedAt, $0.contentId) < ($1.publishedAt, $1.contentId) }
    }

    /// The latest publication time of any version, or nil for a catalog without content.
    public var lastPublishedAt: Int64? {
        versions.map(\.publishedAt).max()
    }
}
