import DepotBundles
import DepotOrigin

/// The byte path's files come from the bundle store: its local cache of the object store's bundles.
extension LocalBundleStore: BundleFileSource {}
