/// A content at one version: names one version among a product's versions, as a dictionary key or a set member.
public struct ContentAtVersion: Hashable, Sendable {
    /// The content.
    public var contentId: String
    /// The version.
    public var version: String

    /// The content `contentId` at `version`.
    public init(contentId: String, version: String) {
        self.contentId = contentId
        self.version = version
    }

    /// The content and version of `content`.
    public init(_ content: ContentVersion) {
        self.init(contentId: content.contentId, version: content.version)
    }
}
