import DepotAPI
import DepotCore
import Synchronization

/// The catalog being served, with its product lists, swapped whole when the ledger's catalog changes.
///
/// Every reader (redeems, finishes, the list routes, the revocation refresh) asks the holder for the
/// current catalog, so a publish made through any instance reaches all of them without a restart.
package final class CatalogHolder: Sendable {
    private struct Installed {
        var revision: Int64
        var catalog: Catalog
        var listing: ScheduledListing
    }

    private let installed: Mutex<Installed>

    /// Holds `catalog` at `revision`, its lists rendered as they read at `now`.
    package init(catalog: Catalog, revision: Int64, now: Int64) throws {
        installed = Mutex(Installed(revision: revision, catalog: catalog, listing: try ScheduledListing(catalog: catalog, now: now)))
    }

    /// The catalog served now.
    package var current: Catalog { installed.withLock { $0.catalog } }

    /// The ledger revision of the catalog served now.
    package var revision: Int64 { installed.withLock { $0.revision } }

    /// The product lists as they read at `now`.
    package func listing(at now: Int64) throws -> ProductListing {
        try installed.withLock { $0.listing }.listing(at: now)
    }

    /// Serves `catalog` from now on, unless a newer revision is already installed (two refreshes racing), or the
    /// same one and `replacingSameRevision` is false. Returns whether it was installed. The same revision is installed
    /// again when more of its bundles became servable (fetched from the object store after a failure).
    @discardableResult
    package func install(_ catalog: Catalog, revision: Int64, now: Int64, replacingSameRevision: Bool = false) throws -> Bool {
        let listing = try ScheduledListing(catalog: catalog, now: now)
        return installed.withLock { installed in
            guard revision > installed.revision || (replacingSameRevision && revision == installed.revision) else {
                return false
            }
            installed = Installed(revision: revision, catalog: catalog, listing: listing)
            return true
        }
    }
}
