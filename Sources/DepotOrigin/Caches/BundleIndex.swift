import DepotCore
import DepotHTTP
import NIOConcurrencyHelpers
import NIOHTTP1
import Synchronization

/// A bundle the server can send: its catalog entry, the file holding its bytes, and the header fields of
/// its unconditional 200 answer, computed once (they never change).
///
/// A class: an answer hands it along several times, and a copy then costs one reference count instead of one
/// per string and array it holds.
package final class ServedBundle: Sendable {
    /// The content version the bundle belongs to.
    package let version: ContentVersion
    /// Absolute path of the immutable bundle file.
    package let path: String
    /// What RFC 9110 says about the bundle (validators, size, caching).
    let representation: RepresentationMetadata
    /// Header fields of the unconditional 200 (without Date and Connection).
    let completeHeaders: HTTPHeaders
    /// The HTTP/1.1 status line and `completeHeaders`, serialized once.
    let completeHeadPrefix: [UInt8]
    /// The fields of a single-part 206 after its Content-Range and Content-Length, origin fields included,
    /// serialized once (`ResponsePlan.partialFieldsAfterLength`, then `originFields`).
    let partialHeadSuffix: [UInt8]
    /// Fields added as a CDN's origin (edge lifetime, purge tags) to every answer that carries the bundle
    /// or its validators (200, 206, 304); already part of `completeHeaders`.
    let originFields: [(name: String, value: String)]

    /// Cache-Control of every bundle: bundles never change (DESIGN.md, "Grants, trust and the edge").
    static let cacheControl = "public, max-age=31536000, immutable"
    /// Media type of bundles.
    static let contentType = "application/zip"

    /// Creates a served bundle.
    package convenience init(version: ContentVersion, path: String) {
        self.init(version: version, path: path, originFields: [])
    }

    private init(version: ContentVersion, path: String, originFields: [(name: String, value: String)]) {
        self.version = version
        self.path = path
        self.originFields = originFields
        let representation = RepresentationMetadata(
            size: version.size, entityTag: version.digest.hex, lastModified: version.publishedAt,
            contentType: Self.contentType, cacheControl: Self.cacheControl)
        self.representation = representation
        let plan = ConditionalEvaluator.plan(
            for: RequestConditions(method: .get, headers: [(name: String, value: String)]()),
            representation: representation, now: version.publishedAt + 1, boundary: "unused")
        completeHeaders = HTTPHeaders(plan.headers.map { ($0.name, $0.value) } + originFields)
        completeHeadPrefix = ResponseHeadBytes.prefix(of: completeHeaders)
        let partialFields = ResponsePlan.partialFieldsAfterLength(representation).map { ($0.name, $0.value) } + originFields
        partialHeadSuffix = ResponseHeadBytes.fields(partialFields)
    }

    /// This bundle with the fields `originFields` adds for it as a CDN's origin.
    func adding(_ originFields: BundleIndex.OriginFields) -> ServedBundle {
        ServedBundle(version: version, path: path, originFields: originFields(version))
    }
}

/// The bundles currently served, by digest; swapped whole when the catalog changes.
///
/// Read on every bundle request from every event loop: a read is one lock and one dictionary lookup, or, for the
/// bundle an event loop met last while the index has not changed since, one atomic load and one comparison.
package final class BundleIndex: Sendable {
    /// The bundle an event loop met last, and the index's generation it was read in.
    struct Memo {
        fileprivate var generation = -1
        fileprivate var digest: BundleDigest?
        fileprivate var bundle: ServedBundle?
    }

    private let bundles: NIOLockedValueBox<[BundleDigest: ServedBundle]>
    /// Counts the replacements; a memo from an older generation is not used.
    private let generation = Atomic<Int>(0)
    private let originFields: OriginFields

    /// The header fields added, as a CDN's origin, to every answer carrying a bundle of a version (or its
    /// validators): the edge lifetime and the purge tags the server's edge settings ask for.
    package typealias OriginFields = @Sendable (ContentVersion) -> [(name: String, value: String)]

    /// Creates an index of the given bundles, each answered with the fields `originFields` gives for it (none by
    /// default: a server not configured for edges, and unit tests).
    package init(_ bundles: [ServedBundle] = [], originFields: @escaping OriginFields = { _ in [] }) {
        self.originFields = originFields
        self.bundles = NIOLockedValueBox(
            Dictionary(bundles.map { ($0.version.digest, $0.adding(originFields)) }, uniquingKeysWith: { a, _ in a }))
    }

    /// The bundle with this digest, if served.
    package func bundle(digest: BundleDigest) -> ServedBundle? {
        bundles.withLockedValue { $0[digest] }
    }

    /// The bundle with this digest, if served; `memo` answers when it holds this digest for the index as it is,
    /// and keeps what a lookup found.
    func bundle(digest: BundleDigest, memo: inout Memo) -> ServedBundle? {
        if memo.generation == generation.load(ordering: .acquiring), memo.digest == digest { return memo.bundle }
        // Read under the lock with the table, so the memo's generation is the table's.
        let (found, current) = bundles.withLockedValue { ($0[digest], generation.load(ordering: .relaxed)) }
        memo = Memo(generation: current, digest: digest, bundle: found)
        return found
    }

    /// Replaces every entry.
    package func replace(with newBundles: [ServedBundle]) {
        let table = Dictionary(newBundles.map { ($0.version.digest, $0.adding(originFields)) }, uniquingKeysWith: { a, _ in a })
        bundles.withLockedValue {
            $0 = table
            generation.add(1, ordering: .releasing)
        }
    }
}
