/// A content version an app already has, so that the server may offer a delta instead of the whole bundle.
public struct InstalledContent: Sendable, Equatable, Codable {
    /// The content identifier.
    public var contentId: String
    /// The version installed.
    public var version: String

    /// Creates an installed version.
    public init(contentId: String, version: String) {
        self.contentId = contentId
        self.version = version
    }
}
