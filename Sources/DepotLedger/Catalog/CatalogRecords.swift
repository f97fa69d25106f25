import DepotCore

/// A product as the ledger's catalog holds it.
package struct CatalogProduct: Sendable, Equatable {
    /// The App Store product identifier.
    package var id: String
    /// What kind of product it is.
    package var type: ProductType
    /// A title for people.
    package var title: String
    /// For a non-renewing subscription, the length of one purchased period in days.
    package var periodDays: Int?

    /// Creates a product record.
    package init(id: String, type: ProductType, title: String, periodDays: Int? = nil) {
        self.id = id
        self.type = type
        self.title = title
        self.periodDays = periodDays
    }

    /// Whether `other` sells on other terms: another type or another period (a title is not a term).
    package func hasOtherTerms(than other: CatalogProduct) -> Bool {
        type != other.type || periodDays != other.periodDays
    }

    /// The domain's product.
    package var product: Product {
        Product(id: id, type: type, title: title, periodSeconds: periodDays.map { Int64($0) * 86_400 })
    }
}

/// One version of one content as the ledger's catalog holds it: its bundle and where it stands.
package struct CatalogVersion: Sendable, Equatable {
    /// The product, content, version, publication time and bundle.
    package var content: ContentVersion
    /// Staged, published, superseded or failed.
    package var state: VersionState
    /// When it was recorded (seconds since 1970).
    package var stagedAt: Int64
    /// When it was last made current by a publish or rollback (seconds since 1970), if ever.
    package var activatedAt: Int64?
    /// Why it failed, for a failed version.
    package var failureReason: String?
    /// To whom it is offered while published (to whom it last was, once superseded).
    package var release: VersionRelease

    /// Creates a version record.
    package init(
        content: ContentVersion, state: VersionState, stagedAt: Int64, activatedAt: Int64? = nil, failureReason: String? = nil,
        release: VersionRelease = .full
    ) {
        self.content = content
        self.state = state
        self.release = release
        self.stagedAt = stagedAt
        self.activatedAt = activatedAt
        self.failureReason = failureReason
    }

    /// Whether `other` records the same pack at the same version: same bundle and publication time.
    package func isSamePack(as other: ContentVersion) -> Bool {
        content.digest == other.digest && content.size == other.size && content.publishedAt == other.publishedAt
    }
}

/// The whole catalog at one revision, read in one consistent snapshot.
package struct CatalogSnapshot: Sendable, Equatable {
    /// The revision counter: every change to the catalog increments it.
    package var revision: Int64
    /// When a publish, rollback or product edit last changed what apps see (seconds since 1970), or 0.
    package var changedAt: Int64
    /// Every product, sorted by id.
    package var products: [CatalogProduct]
    /// Every version, sorted by product, content, publication time and version.
    package var versions: [CatalogVersion]
    /// Every recorded delta bundle.
    package var deltas: [DeltaBundle]

    /// Creates a snapshot.
    package init(revision: Int64, changedAt: Int64, products: [CatalogProduct], versions: [CatalogVersion], deltas: [DeltaBundle]) {
        self.revision = revision
        self.changedAt = changedAt
        self.products = products
        self.versions = versions
        self.deltas = deltas
    }

    /// The catalog apps are served: products in `order` first (the configuration's order), then the rest
    /// by id; published versions offered, superseded ones served by digest only.
    package func catalog(productOrder order: [String] = []) -> Catalog {
        let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let products = self.products.sorted {
            (rank[$0.id] ?? Int.max, $0.id) < (rank[$1.id] ?? Int.max, $1.id)
        }.map(\.product)
        let published = versions.filter { $0.state == .published }
        return Catalog(
            products: products,
            versions: published.filter(\.release.isFull).map(\.content),
            superseded: versions.filter { $0.state == .superseded }.map(\.content),
            limited: published.filter { !$0.release.isFull }.map { LimitedRelease(version: $0.content, release: $0.release) },
            deltas: offeredDeltas, changedAt: changedAt)
    }

    /// The deltas apps may be offered: towards a beta version any, towards a production version only those from a
    /// version released in production (one built from a beta version before this rule would name the beta's files
    /// in its `RemovedPaths`, and would tell whether a beta version string exists).
    var offeredDeltas: [DeltaBundle] {
        var channels: [String: VersionRelease.Channel] = [:]
        for version in versions where version.state.wasPublished {
            channels["\(version.content.productId)\n\(version.content.contentId)\n\(version.content.version)"] =
                version.release.channel
        }
        return deltas.filter { delta in
            let key = "\(delta.productId)\n\(delta.contentId)\n"
            return channels[key + delta.targetVersion] == .beta || channels[key + delta.baseVersion] == .production
        }
    }
}
