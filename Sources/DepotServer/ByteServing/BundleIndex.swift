import DepotCore
import DepotHTTP
import NIOConcurrencyHelpers
import NIOHTTP1

/// A bundle the server can send: its catalog entry, the file holding its bytes, and the header fields of
/// its unconditional 200 answer, computed once (they never change).
package struct ServedBundle: Sendable {
    /// The content version the bundle belongs to.
    package var version: ContentVersion
    /// Absolute path of the immutable bundle file.
    package var path: String
    /// What RFC 9110 says about the bundle (validators, size, caching).
    let representation: RepresentationMetadata
    /// Header fields of the unconditional 200 (without Date and Connection).
    let completeHeaders: HTTPHeaders
    /// The HTTP/1.1 status line and `completeHeaders`, serialized once.
    let completeHeadPrefix: [UInt8]

    /// Cache-Control of every bundle: bundles never change (DESIGN.md, "Grants, trust and the edge").
    static let cacheControl = "public, max-age=31536000, immutable"
    /// Media type of bundles.
    static let contentType = "application/zip"

    /// Creates a served bundle.
    package init(version: ContentVersion, path: String) {
        self.version = version
        self.path = path
        representation = RepresentationMetadata(
            size: version.size, entityTag: version.digest, lastModified: version.publishedAt,
            contentType: Self.contentType, cacheControl: Self.cacheControl)
        let plan = ConditionalEvaluator.plan(
            for: RequestConditions(method: .get, headers: [(name: String, value: String)]()),
            representation: representation, now: version.publishedAt + 1, boundary: "unused")
        completeHeaders = HTTPHeaders(plan.headers.map { ($0.name, $0.value) })
        completeHeadPrefix = ResponseHeadBytes.prefix(of: completeHeaders)
    }
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
