import DepotCore
import DepotLedger
import DepotTrust
import Logging

/// One content offered for download with a fresh grant: the full bundle, or a delta over the version the app
/// has.
package struct GrantedDownload: Sendable, Equatable {
    /// The content identifier.
    package var contentId: String
    /// The version the content is at once the bundle is installed.
    package var version: String
    /// The bundle's size in bytes.
    package var size: Int64
    /// The bundle's digest.
    package var digest: BundleDigest
    /// The grant that opens the bundle.
    package var grant: String
    /// When the grant expires, seconds since 1970.
    package var grantExpiresAt: Int64
    /// For a delta, the version it applies over.
    package var baseVersion: String?
}

/// One content offered: the version, and the delta to it when the app has an older version installed.
struct Offer {
    var version: ContentVersion
    var delta: DeltaBundle?
    var digest: BundleDigest { delta?.digest ?? version.digest }
    var size: Int64 { delta?.size ?? version.size }
}

extension DeliveryContext {
    /// The wait a refused redeem names when a bundle cannot be served here now: the catalog tries a missing bundle
    /// again this often.
    package static let bundleRetrySeconds = CatalogRefresher.missingRetrySeconds

    /// Records the grants in the ledger, then hands out a download with a fresh grant for each offer. When this instance
    /// cannot serve one of the bundles (see `Catalog.unservable`), nothing is recorded and the redeem is refused for a
    /// while: an answer offering less than the purchase entitles would let the app finish with nothing installed.
    /// A rental's grants last no longer than ``DeliveryContext/rentalGrantBound(_:now:)``.
    func grantDownloads(_ offers: [Offer], of stored: LedgerTransaction, now: Int64) async throws(DeliveryError) -> [GrantedDownload] {
        let transactionId = stored.transaction.id
        let catalog = catalog
        if let missing = offers.first(where: { !catalog.isServable($0.digest) }) {
            logger.warning(
                "redeem refused: a bundle it entitles cannot be served here now",
                metadata: [
                    "transaction": "\(transactionId)", "content": "\(missing.version.contentId)",
                    "version": "\(missing.version.version)", "digest": "\(missing.digest)",
                ])
            throw .bundleUnavailable(retryAfterSeconds: Self.bundleRetrySeconds)
        }
        let planned = offers.map {
            PlannedDelivery(contentId: $0.version.contentId, version: $0.version.version, digest: $0.digest)
        }
        try await ledgerCall { () async throws(LedgerError) in
            try await ledger.recordGrants(transactionId: transactionId, deliveries: planned, now: now)
        }
        // Overflow-checked: a lifetime the configuration bounds, but never trusted to.
        let (sum, overflow) = now.addingReportingOverflow(grantLifetime)
        let lifetimeEnd = overflow ? (grantLifetime < 0 ? Int64.min : Int64.max) : sum
        let expiresAt = rentalGrantBound(stored, now: now).map { min($0, lifetimeEnd) } ?? lifetimeEnd
        return offers.map { offer in
            GrantedDownload(
                contentId: offer.version.contentId, version: offer.version.version, size: offer.size, digest: offer.digest,
                grant: grants.issue(digest: offer.digest, expiresAt: expiresAt, transactionId: transactionId),
                grantExpiresAt: expiresAt, baseVersion: offer.delta?.baseVersion)
        }
    }
}
