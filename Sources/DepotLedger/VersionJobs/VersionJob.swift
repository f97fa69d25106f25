/// Where a version a publisher asked for (from an upload) stands on its way to `staged`.
package enum VersionJobState: String, Sendable, Equatable, CaseIterable {
    /// Recorded; no work started yet.
    case received
    /// The upload's digest is being checked and the archive unpacked and checked.
    case validating
    /// The pack is being bundled.
    case bundling
    /// The version is staged: the catalog holds it from now on.
    case staged
    /// It failed; `failureReason` says why. Nothing was staged.
    case failed

    /// Whether no more work will happen on a job in this state.
    package var isFinal: Bool { self == .staged || self == .failed }
}

/// A publisher's request to turn an upload into a version of a product, as the ledger keeps it so that every
/// instance can report it and a restart cannot leave it claiming to be in progress.
package struct VersionJob: Sendable, Equatable {
    /// 32 lowercase hex digits.
    package var id: String
    /// The product the version belongs to.
    package var productId: String
    /// The declared version.
    package var version: String
    /// The declared content id, if the request named one.
    package var contentId: String?
    /// The upload holding the archive.
    package var uploadId: String
    /// The publisher that asked (a key's publisher name).
    package var publisher: String
    /// The declared SHA-256 of the upload, lowercase hex.
    package var sha256: String
    /// A publication time replacing the pack's own, in seconds since 1970.
    package var publishedAt: Int64?
    /// Where it stands.
    package var state: VersionJobState
    /// Why it failed, for a failed job.
    package var failureReason: String?
    /// When it was asked for, in seconds since 1970.
    package var createdAt: Int64
    /// When its worker last reported (a state change or a heartbeat), in seconds since 1970.
    package var updatedAt: Int64

    /// Creates a job record.
    package init(
        id: String, productId: String, version: String, contentId: String?, uploadId: String, publisher: String,
        sha256: String, publishedAt: Int64?, state: VersionJobState, failureReason: String? = nil, createdAt: Int64,
        updatedAt: Int64
    ) {
        self.id = id
        self.productId = productId
        self.version = version
        self.contentId = contentId
        self.uploadId = uploadId
        self.publisher = publisher
        self.sha256 = sha256
        self.publishedAt = publishedAt
        self.state = state
        self.failureReason = failureReason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What recording a new version job did.
package enum VersionJobCreation: Sendable, Equatable {
    /// The job is recorded (earlier finished jobs for the same product, content and version are replaced).
    case created
    /// A job for the same product, content and version is still being worked on; nothing was recorded.
    case inProgress(VersionJob)
}
