/// Resumable (tus) uploads under `/v1/publisher/uploads`.
package struct UploadSettings: Sendable {
    /// Largest upload in bytes (`Tus-Max-Size`); larger ones are refused with 413.
    package var maxSize: Int64
    /// Seconds an upload lives after its creation or its last PATCH (`Upload-Expires`).
    package var expirySeconds: Int64
    /// Seconds between two runs of the reaper that removes expired uploads.
    package var reaperIntervalSeconds: Int64
    /// Most live (unexpired, unfinished) uploads one publisher may hold; one more is refused with 403.
    package var maxLivePerPublisher: Int = 20
    /// Most bytes one publisher's live uploads may declare together (a deferred length counts as `maxSize`); past
    /// it, a new upload is refused with 403.
    package var maxLiveBytesPerPublisher: Int64 = 64 << 30

    /// Upload settings; the quotas default to 20 uploads and 64 GiB per publisher.
    package init(
        maxSize: Int64, expirySeconds: Int64, reaperIntervalSeconds: Int64, maxLivePerPublisher: Int = 20,
        maxLiveBytesPerPublisher: Int64 = 64 << 30
    ) {
        self.maxSize = maxSize
        self.expirySeconds = expirySeconds
        self.reaperIntervalSeconds = reaperIntervalSeconds
        self.maxLivePerPublisher = maxLivePerPublisher
        self.maxLiveBytesPerPublisher = maxLiveBytesPerPublisher
    }
}
