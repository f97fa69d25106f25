import DepotCore
import DepotLedger

/// Why a publisher's change was refused. The server maps every case to its error code in one place.
package enum PublishingError: Error, Sendable, Equatable {
    /// The product is not in the catalog.
    case unknownProduct(productId: String)
    /// The content has no such version.
    case unknownVersion(contentId: String, version: String)
    /// Several contents of the product have this version; the request must name one.
    case ambiguousVersion(productId: String, version: String, contents: [String])
    /// The version failed and cannot be published.
    case versionFailed(contentId: String, version: String)
    /// The release asked for cannot be made (`PublishPlan.Refusal`): a rollout without a current version, not
    /// newer than it, or lower than it was; a halt of what does not roll out.
    case releaseRefused(contentId: String, version: String, PublishPlan.Refusal)
    /// Only a beta version can be promoted.
    case notBeta(contentId: String, version: String)
    /// The version was published once; published versions are kept.
    case versionWasPublished(contentId: String, version: String)
    /// The product has versions or transactions: its type and period are fixed.
    case typeLocked(existing: CatalogProduct)
    /// A version of the product is already on its way from an upload.
    case versionInProgress(productId: String, live: VersionJob)
    /// The ledger cannot be read or changed right now.
    case unavailable
}
