import DepotCore

/// What `pack.json` says about a pack: which product (or issue) it is, at which version, published when.
///
/// Reads `productId`, `version`, `publishedAt` (required), `contentId` (defaults to `productId`; for a
/// magazine issue it names the issue) and `title`; other keys are ignored.
package struct PackManifest: Sendable, Equatable {
    /// The App Store product identifier (`IAPProductIdentifier` in the bundle).
    package var productId: String
    /// What this pack delivers: the product itself, or one issue of a subscription.
    package var contentId: String
    /// The content version (`ContentVersion` in the bundle).
    package var version: String
    /// Publication time, Unix seconds (UTC). The bundle's Last-Modified.
    package var publishedAt: Int64
    /// An optional human title.
    package var title: String?

    /// A manifest; `contentId` defaults to `productId`.
    package init(productId: String, contentId: String? = nil, version: String, publishedAt: Int64, title: String? = nil) {
        self.productId = productId
        self.contentId = contentId ?? productId
        self.version = version
        self.publishedAt = publishedAt
        self.title = title
    }

    /// `publishedAt` as ISO 8601 UTC (`2026-03-01T09:00:00Z`).
    package var publishedAtISO8601: String { UTCTimestamp.format(publishedAt) }
}
