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
    private(set) var completeHeaders: HTTPHeaders
    /// The HTTP/1.1 status line and `completeHeaders`, serialized once.
    private(set) var completeHeadPrefix: [UInt8]
    /// The fields of a single-part 206 after its Content-Range and Content-Length, origin fields included,
    /// serialized once (`ResponsePlan.partialFieldsAfterLength`, then `originFields`).
    private(set) var partialHeadSuffix: [UInt8] = []
    /// Fields added as a CDN's origin (edge lifetime, purge tags) to every answer that carries the bundle
    /// or its validators (200, 206, 304); already part of `completeHeaders`.
    private(set) var originFields: [(name: String, value: String)] = []

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
        completeHeaders = HTTPHeaders()
        completeHeadPrefix = []
        prepareCompleteHead()
    }

    /// This bundle with the fields `headers` adds for it as a CDN's origin.
    func adding(_ headers: OriginHeaders) -> ServedBundle {
        var bundle = self
        bundle.originFields = headers.bundleFields(for: version)
        bundle.prepareCompleteHead()
        return bundle
    }

    private mutating func prepareCompleteHead() {
        let plan = ConditionalEvaluator.plan(
            for: RequestConditions(method: .get, headers: [(name: String, value: String)]()),
            representation: representation, now: version.publishedAt + 1, boundary: "unused")
        completeHeaders = HTTPHeaders(plan.headers.map { ($0.name, $0.value) } + originFields)
        completeHeadPrefix = ResponseHeadBytes.prefix(of: completeHeaders)
        let partialFields = ResponsePlan.partialFieldsAfterLength(representation).map { ($0.name, $0.value) } + originFields
        partialHeadSuffix = ResponseHeadBytes.fields(partialFields)
    }
}

/// The bundles currently served, by digest; swapped whole when the catalog changes.
///
/// Read on every bundle request from every event loop, so a read is one lock and one dictionary lookup.
package final class BundleIndex: Sendable {
    private let bundles: NIOLockedValueBox<[String: ServedBundle]>
    private let originHeaders: OriginHeaders

    /// Creates an index of the given bundles, each answered with the fields `originHeaders` adds.
    package init(_ bundles: [ServedBundle] = [], originHeaders: OriginHeaders = .none) {
        self.originHeaders = originHeaders
        self.bundles = NIOLockedValueBox(
            Dictionary(bundles.map { ($0.version.digest, $0.adding(originHeaders)) }, uniquingKeysWith: { a, _ in a }))
    }

    /// The bundle with this digest, if served.
    package func bundle(digest: String) -> ServedBundle? {
        bundles.withLockedValue { $0[digest] }
    }

    /// Replaces every entry.
    package func replace(with newBundles: [ServedBundle]) {
        let table = Dictionary(newBundles.map { ($0.version.digest, $0.adding(originHeaders)) }, uniquingKeysWith: { a, _ in a })
        bundles.withLockedValue { $0 = table }
    }
}
