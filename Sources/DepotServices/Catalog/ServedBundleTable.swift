import DepotCore

/// Where the bundles the catalog offers are served from: each entry is a version and the path of its bundle
/// file in the store (the byte path's index).
package protocol ServedBundleTable: Sendable {
    /// Replaces every entry with `bundles`.
    func replace(withBundles bundles: [(version: ContentVersion, path: String)])
}
