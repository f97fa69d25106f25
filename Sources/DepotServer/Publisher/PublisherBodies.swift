import DepotCore
import DepotLedger

/// `PUT /v1/publisher/products/{productId}`'s body. Fields are read loosely and validated one by one, so
/// each mistake gets its own error code.
struct ProductRequest: Decodable {
    var type: String?
    var title: String?
    var periodDays: Int?
}

/// A product as the publisher routes answer it.
struct PublisherProductBody: Encodable {
    var id: String
    var type: String
    var title: String
    var periodDays: Int?
    var versions: [PublisherVersionBody]
}

/// One version as the publisher routes answer it. A catalog version's `state` is `staged`, `published`,
/// `superseded` or `failed`, and `current` says whether every buyer is offered it now; a published or superseded
/// one has its (last) `release`. A version still on its way
/// from an upload (a version job) is `received`, `validating`, `bundling` or `failed` (with
/// `failureReason`), names its `job` and `upload`, and has no bundle yet.
struct PublisherVersionBody: Encodable {
    var productId: String
    var contentId: String?
    var version: String
    var state: String
    var current: Bool
    var digest: String?
    var size: Int64?
    var unpackedSize: Int64?
    var publishedAt: String?
    var stagedAt: String?
    var activatedAt: String?
    var failureReason: String?
    var release: ReleaseBody?
    /// Purchases a redeem or restore offered this version to.
    var offered: Int64?
    /// Purchases whose app confirmed its delivery.
    var delivered: Int64?
    var job: String?
    var upload: String?
    var updatedAt: String?

    /// The bodies of one product's versions; `current` per content as `Catalog.currentContents` decides it; `reach`
    /// (`PublishingService.reach`) gives each published version's counts.
    static func list(_ versions: [CatalogVersion], now: Int64, reach: [ContentAtVersion: VersionReach] = [:]) -> [PublisherVersionBody] {
        let published = versions.filter { $0.state == .published && $0.release.isFull }.map(\.content)
        let offered = Catalog(products: [], versions: published)
        let current = Set(
            Set(published.map(\.productId)).flatMap { offered.currentContents(of: $0, at: now) }
                .map(ContentAtVersion.init))
        return versions.map { record in
            let content = record.content
            let key = ContentAtVersion(content)
            return PublisherVersionBody(
                productId: content.productId, contentId: content.contentId, version: content.version,
                state: record.state.rawValue, current: current.contains(key),
                digest: content.digest.hex, size: content.size, unpackedSize: content.unpackedSize,
                publishedAt: UTCTimestamp.format(content.publishedAt), stagedAt: UTCTimestamp.format(record.stagedAt),
                activatedAt: record.activatedAt.map(UTCTimestamp.format), failureReason: record.failureReason,
                release: record.state.wasPublished ? ReleaseBody(record.release) : nil,
                offered: record.state.wasPublished ? reach[key]?.offered ?? 0 : nil,
                delivered: record.state.wasPublished ? reach[key]?.delivered ?? 0 : nil)
        }
    }
}

extension PublisherVersionBody {
    /// The body of a version job (a version on its way from an upload).
    init(job: VersionJob) {
        self.init(
            productId: job.productId, contentId: job.contentId, version: job.version, state: job.state.rawValue,
            current: false, publishedAt: job.publishedAt.map(UTCTimestamp.format), failureReason: job.failureReason,
            job: job.id, upload: job.uploadId, updatedAt: UTCTimestamp.format(job.updatedAt))
    }
}

/// To whom a version is offered: `channel` `production` or `beta`, the `rollout` percent of the channel's buyers,
/// and whether the rollout is `halted`.
struct ReleaseBody: Encodable {
    var channel: String
    var rollout: Int
    var halted: Bool

    init(_ release: VersionRelease) {
        channel = release.channel.rawValue
        rollout = release.percent
        halted = release.halted
    }
}

/// `POST /v1/publisher/products/{productId}/versions`'s body.
struct VersionRequest: Decodable {
    var upload: String?
    var version: String?
    var sha256: String?
    var contentId: String?
    var publishedAt: String?
}

/// `POST /v1/publisher/products/{productId}/versions`'s answer (202): the job, to follow in the list.
struct VersionJobEnvelope: Encodable {
    var version: PublisherVersionBody
}

/// `GET .../versions`.
struct PublisherVersionsBody: Encodable {
    var versions: [PublisherVersionBody]
}

/// `POST .../versions/{version}/publish`.
struct PublishBody: Encodable {
    var version: PublisherVersionBody
    var rollback: Bool
    var changed: Bool
}

/// `GET|PUT /v1/publisher/products/{productId}`.
struct PublisherProductEnvelope: Encodable {
    var product: PublisherProductBody
}
