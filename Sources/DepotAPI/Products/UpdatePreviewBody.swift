/// `GET /v1/products/{productId}/update?from=V`: what a buyer on version V would download.
public struct UpdatePreviewBody: Codable, Sendable, Equatable {
    /// The product.
    public var productId: String
    /// The content.
    public var contentId: String
    /// The version the buyer holds.
    public var from: String
    /// The current version.
    public var to: String
    /// `none` (already current), `delta` or `full`.
    public var download: String
    /// The bytes to download.
    public var bytes: Int64

    /// A body as given.
    public init(productId: String, contentId: String, from: String, to: String, download: String, bytes: Int64) {
        self.productId = productId
        self.contentId = contentId
        self.from = from
        self.to = to
        self.download = download
        self.bytes = bytes
    }
}
