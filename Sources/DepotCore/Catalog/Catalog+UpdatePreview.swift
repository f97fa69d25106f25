/// What a buyer holding one version of a content would download to reach the current one.
public struct UpdatePreview: Sendable, Equatable {
    /// How the current version would arrive.
    public enum Kind: String, Sendable {
        /// The version held is the current one: nothing to download.
        case none
        /// A delta bundle from the version held.
        case delta
        /// The whole bundle (no delta from the version held).
        case full
    }

    /// The content's current version.
    public var current: ContentVersion
    /// How it would arrive.
    public var kind: Kind
    /// The bytes to download (0 for `none`).
    public var bytes: Int64

    /// A preview as given.
    public init(current: ContentVersion, kind: Kind, bytes: Int64) {
        self.current = current
        self.kind = kind
        self.bytes = bytes
    }
}

extension Catalog {
    /// What a buyer holding version `from` of content `contentId` of `productId` (the product's only current content
    /// when nil) would download at `now`; nil when the product has no such content (or several and none was named).
    public func updatePreview(productId: String, contentId: String?, from: String, at now: Int64) -> UpdatePreview? {
        let contents = currentContents(of: productId, at: now)
        let current: ContentVersion
        if let contentId {
            guard let named = contents.first(where: { $0.contentId == contentId }) else { return nil }
            current = named
        } else {
            guard contents.count == 1 else { return nil }
            current = contents[0]
        }
        if current.version == from { return UpdatePreview(current: current, kind: .none, bytes: 0) }
        let delta = deltas.first {
            $0.productId == productId && $0.contentId == current.contentId && $0.baseVersion == from
                && $0.targetVersion == current.version
        }
        if let delta { return UpdatePreview(current: current, kind: .delta, bytes: delta.size) }
        return UpdatePreview(current: current, kind: .full, bytes: current.size)
    }
}
