/// A published version offered to part of the buyers (a rollout, running or halted) or to test purchases (beta),
/// beside the content's current version, which everyone else keeps.
public struct LimitedRelease: Sendable, Equatable {
    /// The version.
    public var version: ContentVersion
    /// To whom it is offered; never a full release.
    public var release: VersionRelease

    /// A limited release.
    public init(version: ContentVersion, release: VersionRelease) {
        self.version = version
        self.release = release
    }
}
