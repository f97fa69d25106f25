import DepotCore
import DepotOrigin
import DepotServices

extension BundleIndex: ServedBundleTable {
    /// Replaces every entry with a served bundle for each version and path.
    package func replace(withBundles bundles: [(version: ContentVersion, path: String)]) {
        replace(with: bundles.map { ServedBundle(version: $0.version, path: $0.path) })
    }
}
