/// The state changes that publishing one version of a content makes, decided from the content's versions
/// alone (the ledger stores them in one transaction; the rule lives here so both engines share it).
///
/// The rule, for a target published with a release (`VersionRelease`):
/// - The target becomes `published` with that release.
/// - A full production release supersedes every other published production version (a rollout running beside
///   it included), except, when the target is scheduled for later (its publication time is after `now`), the
///   version current at `now`, which stays until the target's time comes. Publishing a superseded or an older
///   version is a rollback; publishing the version current in full changes nothing, and during a rollout ends it
///   (the rollout's version is superseded: rolled back).
/// - A partial production release (a rollout) supersedes another rollout of the content; the current version
///   stays, for the buyers outside the rollout. It needs a current version to roll out from, newer than which the
///   target must be, and it only grows: a lower percent than the version's running rollout is refused. Halting
///   needs a rollout of the target to halt.
/// - A beta release supersedes the content's other beta version; production is untouched. Publishing a beta
///   version to production (in full or as a rollout) promotes it.
public struct PublishPlan: Sendable, Equatable {
    /// One version of the content as it stands before the publish.
    public struct Entry: Sendable, Equatable {
        /// The version string.
        public var version: String
        /// Its state.
        public var state: VersionState
        /// Its publication time (seconds since 1970).
        public var publishedAt: Int64
        /// To whom it is (or, superseded, was last) offered.
        public var release: VersionRelease

        /// Creates an entry.
        public init(version: String, state: VersionState, publishedAt: Int64, release: VersionRelease = .full) {
            self.version = version
            self.state = state
            self.publishedAt = publishedAt
            self.release = release
        }

        /// Whether the version is offered in `channel` now or later.
        func isPublished(in channel: VersionRelease.Channel) -> Bool {
            state == .published && release.channel == channel
        }
    }

    /// A state change of one version.
    public struct Change: Sendable, Equatable {
        /// The version string.
        public var version: String
        /// Its new state.
        public var state: VersionState
        /// Its release after the change: the target's new one; another version's stays.
        public var release: VersionRelease

        /// Creates a change.
        public init(version: String, state: VersionState, release: VersionRelease = .full) {
            self.version = version
            self.state = state
            self.release = release
        }
    }

    /// Why a version cannot be published.
    public enum Refusal: Error, Sendable, Equatable {
        /// The content has no such version.
        case unknownVersion
        /// The version failed to become ready; it cannot be offered.
        case failedVersion
        /// A rollout needs a version current in full to roll out from; the content has none.
        case nothingToRollOutFrom
        /// A rollout takes buyers forward: the target is not newer than the current version `current`.
        case rolloutNotNewer(current: String)
        /// The version already rolls out to `percent`; a rollout only grows (halt it, or roll back, instead).
        case rolloutShrinks(percent: Int)
        /// Only a running rollout can be halted.
        case notRollingOut
    }

    /// The changes, target first; empty when the publish changes nothing.
    public var changes: [Change]
    /// Whether a version published later than the target (by publication time) was offered in production before:
    /// the publish goes back to an older version, or ends a rollout.
    public var isRollback: Bool

    /// Plans publishing `target` with `release` among `versions` (every version of one content) at `now`.
    public static func plan(
        publishing target: String, release: VersionRelease = .full, among versions: [Entry], now: Int64
    ) throws(Refusal) -> PublishPlan {
        guard let chosen = versions.first(where: { $0.version == target }) else { throw .unknownVersion }
        guard chosen.state != .failed else { throw .failedVersion }
        let others = versions.filter { $0.version != target }
        // The production version current in full at `now` besides the target: the latest one whose time has come.
        let live = others.filter { $0.isPublished(in: .production) && $0.release.isFull && $0.publishedAt <= now }
            .max { ($0.publishedAt, $0.version) < ($1.publishedAt, $1.version) }
        let superseding: [Entry]
        switch release.channel {
        case .beta:
            superseding = others.filter { $0.isPublished(in: .beta) }
        case .production where release.isFull:
            superseding = others.filter { other in
                other.isPublished(in: .production) && !(chosen.publishedAt > now && other.version == live?.version)
            }
        case .production:
            try checkPartial(chosen, release: release, live: live)
            superseding = others.filter { $0.isPublished(in: .production) && $0.release.isPartial }
        }
        var changes: [Change] = []
        if chosen.state != .published || chosen.release != release {
            changes.append(Change(version: target, state: .published, release: release))
        }
        changes += superseding.map { Change(version: $0.version, state: .superseded, release: $0.release) }
        let isRollback =
            release.channel == .production
            && others.contains {
                $0.state.wasPublished && $0.release.channel == .production
                    && ($0.publishedAt, $0.version) > (chosen.publishedAt, chosen.version)
            }
        return PublishPlan(changes: changes, isRollback: isRollback)
    }

    /// Refuses a partial production release of `chosen` that cannot be: nothing to roll out from, a target not
    /// newer than the current version, a rollout shrinking, a halt of what does not roll out.
    private static func checkPartial(_ chosen: Entry, release: VersionRelease, live: Entry?) throws(Refusal) {
        let rollingOut = chosen.isPublished(in: .production) && chosen.release.isPartial
        if release.halted {
            guard rollingOut else { throw .notRollingOut }
            return
        }
        guard let live else { throw .nothingToRollOutFrom }
        guard (chosen.publishedAt, chosen.version) > (live.publishedAt, live.version) else {
            throw .rolloutNotNewer(current: live.version)
        }
        if rollingOut, release.percent < chosen.release.percent { throw .rolloutShrinks(percent: chosen.release.percent) }
    }
}
