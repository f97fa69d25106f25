/// The state changes that publishing one version of a content makes, decided from the content's versions
/// alone (the ledger stores them in one transaction; the rule lives here so both engines share it).
///
/// The rule: the target becomes `published`; every other published version of the content becomes
/// `superseded`, except, when the target is scheduled for later (its publication time is after `now`), the
/// version current at `now`, which stays until the target's time comes. Publishing a superseded or an older
/// version is a rollback. Publishing the only published version changes nothing.
public struct PublishPlan: Sendable, Equatable {
    /// One version of the content as it stands before the publish.
    public struct Entry: Sendable, Equatable {
        /// The version string.
        public var version: String
        /// Its state.
        public var state: VersionState
        /// Its publication time (seconds since 1970).
        public var publishedAt: Int64

        /// Creates an entry.
        public init(version: String, state: VersionState, publishedAt: Int64) {
            self.version = version
            self.state = state
            self.publishedAt = publishedAt
        }
    }

    /// A state change of one version.
    public struct Change: Sendable, Equatable {
        /// The version string.
        public var version: String
        /// Its new state.
        public var state: VersionState

        /// Creates a change.
        public init(version: String, state: VersionState) {
            self.version = version
            self.state = state
        }
    }

    /// Why a version cannot be published.
    public enum Refusal: Error, Sendable, Equatable {
        /// The content has no such version.
        case unknownVersion
        /// The version failed to become ready; it cannot be offered.
        case failedVersion
    }

    /// The changes, target first; empty when the publish changes nothing.
    public var changes: [Change]
    /// Whether a version published later than the target (by publication time) was offered before: the
    /// publish goes back to an older version.
    public var isRollback: Bool

    /// Plans publishing `target` among `versions` (every version of one content) at `now`.
    public static func plan(publishing target: String, among versions: [Entry], now: Int64) throws(Refusal) -> PublishPlan {
        guard let chosen = versions.first(where: { $0.version == target }) else { throw .unknownVersion }
        guard chosen.state != .failed else { throw .failedVersion }
        let others = versions.filter { $0.version != target }
        // The version current at `now` besides the target: the latest published one whose time has come.
        let live = others.filter { $0.state == .published && $0.publishedAt <= now }
            .max { ($0.publishedAt, $0.version) < ($1.publishedAt, $1.version) }
        var changes: [Change] = []
        if chosen.state != .published { changes.append(Change(version: target, state: .published)) }
        for other in others where other.state == .published {
            if chosen.publishedAt > now, other.version == live?.version { continue }
            changes.append(Change(version: other.version, state: .superseded))
        }
        let isRollback = others.contains {
            $0.state.wasPublished && ($0.publishedAt, $0.version) > (chosen.publishedAt, chosen.version)
        }
        return PublishPlan(changes: changes, isRollback: isRollback)
    }
}
