/// Where a content version stands: staged (bundled, not offered), published (current, or scheduled for its
/// publication time), superseded (replaced by a newer version or a rollback; still served by digest), or
/// failed (could not be made ready; kept with its reason).
public enum VersionState: String, Sendable, Codable, CaseIterable {
    /// Bundled and recorded, not offered to apps yet.
    case staged
    /// Offered: the content's current version, or one scheduled to become current at its publication time.
    case published
    /// Was published, then replaced; its bundle stays served so grants handed out for it keep working.
    case superseded
    /// Could not be made ready (see the version's failure reason); never offered.
    case failed

    /// Whether the version was ever offered to apps (a published or superseded version is never deleted).
    public var wasPublished: Bool {
        switch self {
        case .published, .superseded: true
        case .staged, .failed: false
        }
    }
}
