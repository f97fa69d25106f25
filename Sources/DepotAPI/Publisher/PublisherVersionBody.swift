/// One version as the publisher routes answer it. A catalog version's `state` is `staged`, `published`,
/// `superseded` or `failed`, and `current` says whether every buyer is offered it now; a published or superseded
/// one has its (last) `release`. A version still on its way from an upload (a version job) is `received`,
/// `validating`, `bundling` or `failed` (with `failureReason`), names its `job` and `upload`, and has no bundle yet.
public struct PublisherVersionBody: Codable, Sendable {
    /// The product the version is of.
    public var productId: String
    /// The content the version is of.
    public var contentId: String?
    /// The version's name.
    public var version: String
    /// Where the version stands (see the type's description).
    public var state: String
    /// Whether every buyer is offered this version now.
    public var current: Bool
    /// The bundle's digest (SHA-256, hex), once it is built.
    public var digest: String?
    /// The bundle's size in bytes.
    public var size: Int64?
    /// The total size of the unpacked files in bytes.
    public var unpackedSize: Int64?
    /// When buyers are offered it from (ISO 8601 UTC).
    public var publishedAt: String?
    /// When it was staged.
    public var stagedAt: String?
    /// When it was last made current by a publish or rollback.
    public var activatedAt: String?
    /// Why it failed, for a failed version or job.
    public var failureReason: String?
    /// To whom it is offered, for a published or superseded version.
    public var release: ReleaseBody?
    /// Purchases a redeem or restore offered this version to.
    public var offered: Int64?
    /// Purchases whose app confirmed its delivery.
    public var delivered: Int64?
    /// The version job, for a version on its way from an upload.
    public var job: String?
    /// The upload the job reads.
    public var upload: String?
    /// When the job last changed.
    public var updatedAt: String?

    /// A version as answered.
    public init(
        productId: String, contentId: String? = nil, version: String, state: String, current: Bool,
        digest: String? = nil, size: Int64? = nil, unpackedSize: Int64? = nil, publishedAt: String? = nil,
        stagedAt: String? = nil, activatedAt: String? = nil, failureReason: String? = nil, release: ReleaseBody? = nil,
        offered: Int64? = nil, delivered: Int64? = nil, job: String? = nil, upload: String? = nil, updatedAt: String? = nil
    ) {
        self.productId = productId
        self.contentId = contentId
        self.version = version
        self.state = state
        self.current = current
        self.digest = digest
        self.size = size
        self.unpackedSize = unpackedSize
        self.publishedAt = publishedAt
        self.stagedAt = stagedAt
        self.activatedAt = activatedAt
        self.failureReason = failureReason
        self.release = release
        self.offered = offered
        self.delivered = delivered
        self.job = job
        self.upload = upload
        self.updatedAt = updatedAt
    }
}

/// To whom a version is offered: `channel` `production` or `beta`, the `rollout` percent of the channel's buyers,
/// and whether the rollout is `halted`.
public struct ReleaseBody: Codable, Sendable {
    /// `production` or `beta`.
    public var channel: String
    /// The percent of the channel's buyers offered the version (0-100).
    public var rollout: Int
    /// Whether the rollout is halted.
    public var halted: Bool

    /// A release as answered.
    public init(channel: String, rollout: Int, halted: Bool) {
        self.channel = channel
        self.rollout = rollout
        self.halted = halted
    }
}
