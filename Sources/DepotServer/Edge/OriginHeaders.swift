import DepotSettings
import DepotCore
import DepotServices

/// The header fields Depot adds, as a CDN's origin, to bundle answers (200, 206, 304) and to product lists:
/// the edge lifetime field (`CDN-Cache-Control` or `Surrogate-Control`) and the purge tags.
///
/// Computed from the catalog entry alone, so every instance sends the same fields for the same bundle.
package struct OriginHeaders: Sendable {
    private let settings: EdgeSettings

    /// No added fields (a server not configured for edges, and unit tests).
    package static let none = OriginHeaders(
        settings: EdgeSettings(
            lifetimeHeader: nil, lifetimeSeconds: 1, purgeTagHeader: nil, purgeTagSeparator: " ",
            grantCheckCacheSeconds: 0, fillSecretHeader: "X-Depot-Edge-Secret", fillSecrets: []))

    /// The fields the given settings ask for.
    package init(settings: EdgeSettings) {
        self.settings = settings
    }

    /// The fields added to every answer carrying a bundle of `version` (or its validators).
    package func bundleFields(for version: ContentVersion) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if let lifetime = settings.lifetimeHeader {
            fields.append((lifetime.rawValue, "max-age=\(settings.lifetimeSeconds)"))
        }
        if let tagHeader = settings.purgeTagHeader {
            fields.append((tagHeader, PurgeTags.tags(for: version).joined(separator: settings.purgeTagSeparator)))
        }
        return fields
    }

    /// The fields added to the product lists: their purge tag (their lifetime is in their Cache-Control).
    package var productListFields: [(name: String, value: String)] {
        guard let tagHeader = settings.purgeTagHeader else { return [] }
        return [(tagHeader, PurgeTags.productLists)]
    }
}
