/// The body of `POST /v1/transactions/{id}/finish`.
public struct FinishRequest: Sendable, Equatable, Codable {
    /// One bundle the app confirms it received and unpacked.
    public struct Delivered: Sendable, Equatable, Codable {
        /// The content identifier.
        public var contentId: String
        /// The bundle's sha256, lowercase hex.
        public var digest: String

        /// A confirmed bundle.
        public init(contentId: String, digest: String) {
            self.contentId = contentId
            self.digest = digest
        }
    }

    /// The redeem answer's `transaction.finishToken`: proof that the caller is the one that redeemed.
    public var finishToken: String?
    /// The bundles delivered.
    public var delivered: [Delivered]

    /// A finish request.
    public init(finishToken: String?, delivered: [Delivered]) {
        self.finishToken = finishToken
        self.delivered = delivered
    }
}
