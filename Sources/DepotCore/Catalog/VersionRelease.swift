/// To whom a published version is offered: a channel, and within production a share of the buyers.
///
/// A version released in full is the content's current version for everyone. A version rolling out (a percent
/// below 100) is offered to that share of production buyers, chosen by a stable hash of who they are
/// (`ReleaseAudience`); the others keep the current version. A halted rollout offers the version to nobody new,
/// while buyers who got it keep it. A beta version is offered to test purchases only (the App Store's Sandbox and
/// Xcode environments, Google Play's test purchases).
public struct VersionRelease: Sendable, Hashable, Codable {
    /// Which buyers a release is for.
    public enum Channel: String, Sendable, Hashable, Codable, CaseIterable {
        /// Every buyer (within the rollout's percent).
        case production
        /// Test purchases only.
        case beta
    }

    /// The channel.
    public var channel: Channel
    /// The share of the channel's buyers offered the version, 1 to 100.
    public var percent: Int
    /// Whether a rollout is halted: nobody new is offered the version; buyers who got it keep it.
    public var halted: Bool

    /// A release; `percent` is clamped to 1...100.
    public init(channel: Channel, percent: Int = 100, halted: Bool = false) {
        self.channel = channel
        self.percent = min(max(percent, 1), 100)
        self.halted = halted
    }

    /// Every production buyer: the content's current version.
    public static let full = VersionRelease(channel: .production)
    /// Test purchases only.
    public static let beta = VersionRelease(channel: .beta)

    /// A production rollout to `percent` of buyers (100: a full release).
    public static func rollout(_ percent: Int) -> VersionRelease {
        VersionRelease(channel: .production, percent: percent)
    }

    /// Whether this is a full production release (the content's current version for everyone).
    public var isFull: Bool { channel == .production && percent == 100 && !halted }

    /// Whether this is a production release to part of the buyers (running or halted).
    public var isPartial: Bool { channel == .production && !isFull }

    /// How the release reads in an answer or a log: `production`, `production 10%`, `production 10% halted`, `beta`.
    public var summary: String {
        switch channel {
        case .beta: "beta"
        case .production: isFull ? "production" : "production \(percent)%" + (halted ? " halted" : "")
        }
    }
}
