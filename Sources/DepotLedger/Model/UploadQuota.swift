/// How many live uploads one publisher may hold, and how many bytes they may declare together. A live upload is
/// one that exists and has not expired, and either does not have all its bytes yet or has them but no version job
/// has staged a version from it (its bytes still take room until then).
package struct UploadQuota: Sendable, Equatable {
    /// Most live uploads of one publisher.
    package var maxCount: Int
    /// Most bytes the live uploads of one publisher may declare together.
    package var maxBytes: Int64
    /// What an upload whose length is deferred counts for (the most it may grow to: `Tus-Max-Size`).
    package var deferredBytes: Int64

    /// A quota.
    package init(maxCount: Int, maxBytes: Int64, deferredBytes: Int64) {
        self.maxCount = maxCount
        self.maxBytes = maxBytes
        self.deferredBytes = deferredBytes
    }

    /// What the quota says of one more upload declaring `bytes`, given the `count` live uploads declaring `held`
    /// bytes: overflow-checked, so no sum can wrap around into room.
    package func admits(count: Int, held: Int64, bytes: Int64) -> UploadQuotaOutcome {
        guard count < maxCount else { return .overCount }
        let (total, overflow) = held.addingReportingOverflow(bytes)
        guard !overflow, total <= maxBytes else { return .overBytes }
        return .created
    }
}

/// What `createUpload(_:within:now:)` did.
package enum UploadQuotaOutcome: Sendable, Equatable {
    /// The upload was recorded.
    case created
    /// The publisher already holds `maxCount` live uploads: nothing was recorded.
    case overCount
    /// The publisher's live uploads and this one would declare more than `maxBytes`: nothing was recorded.
    case overBytes
}
