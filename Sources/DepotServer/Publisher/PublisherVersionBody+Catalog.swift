import DepotAPI
import DepotCore
import DepotLedger

extension PublisherVersionBody {
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

    /// The body of a version job (a version on its way from an upload).
    init(job: VersionJob) {
        self.init(
            productId: job.productId, contentId: job.contentId, version: job.version, state: job.state.rawValue,
            current: false, publishedAt: job.publishedAt.map(UTCTimestamp.format), failureReason: job.failureReason,
            job: job.id, upload: job.uploadId, updatedAt: UTCTimestamp.format(job.updatedAt))
    }
}

extension ReleaseBody {
    /// The body of a version's release.
    init(_ release: VersionRelease) {
        self.init(channel: release.channel.rawValue, rollout: release.percent, halted: release.halted)
    }
}
