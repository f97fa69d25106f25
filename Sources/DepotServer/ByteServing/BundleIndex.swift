import DepotCore
import NIOConcurrencyHelpers

/// A bundle the server can send: its catalog entry and the file holding its bytes.
package struct ServedBundle: Sendable {
    /// The content version the bundle belongs to.
    package var version: ContentVersion
    /// Absolute path of the immutable bundle file.
    package var path: String
}

/// The bundles currently served, by digest; swapped whole when the catalog changes.
///
/// Read on every bundle request from every event loop, so a read is one lock and one dictionary lookup.
package final class BundleIndex: Sendable {
    private let bundles: NIOLockedValueBox<[String: ServedBundle]>

    /// Creates an index of the given bundles.
    package init(_ bundles: [ServedBundle] = []) {
        self.bundles = NIOLockedValueBox(Dictionary(bundles.map { ($0.version.digest, $0) }, uniquingKeysWith: { a, _ in a }))
    }

    /// The bundle with this digest, if served.
    package func bundle(digest: String) -> ServedBundle? {
        bundles.withLockedValue { $0[digest] }
    }

    /// Replaces every entry.
    package func replace(with newBundles: [ServedBundle]) {
        let table = Dictionary(newBundles.map { ($0.version.digest, $0) }, uniquingKeysWith: { a, _ in a })
        bundles.withLockedValue { $0 = table }
    }
}
