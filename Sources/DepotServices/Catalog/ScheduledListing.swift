import DepotAPI
import DepotCore
import Synchronization

/// The product lists kept current with the clock: rendered once, and again only when a scheduled version's
/// publication time has passed, so a version goes live at its time without a restart and the lists'
/// validators change with it.
package final class ScheduledListing: Sendable {
    private struct Rendered {
        var listing: ProductListing
        /// The next publication time after the rendering, when the lists must be rendered again.
        var validUntil: Int64?
    }

    private let catalog: Catalog
    private let rendered: Mutex<Rendered>

    /// Renders the lists for `catalog` as they read at `now`.
    package init(catalog: Catalog, now: Int64) throws {
        self.catalog = catalog
        rendered = Mutex(
            Rendered(listing: try ProductListing(catalog: catalog, at: now), validUntil: catalog.nextPublication(after: now)))
    }

    /// The lists as they read at `now`.
    package func listing(at now: Int64) throws -> ProductListing {
        try rendered.withLock { rendered in
            if let validUntil = rendered.validUntil, now >= validUntil {
                rendered = Rendered(
                    listing: try ProductListing(catalog: catalog, at: now), validUntil: catalog.nextPublication(after: now))
            }
            return rendered.listing
        }
    }
}
