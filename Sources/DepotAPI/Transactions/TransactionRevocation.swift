/// A refund, revocation or void of a transaction, in whole or in part (`revocation` in a transaction's answer).
public struct TransactionRevocation: Sendable, Equatable, Codable {
    /// `refundFull`, `refundProrated`, `familyRevoke` or `voided`.
    public var type: String
    /// The App Store's share refunded, in milliunits of the whole quantity (100000 is all), when it said.
    public var percentage: Int?
    /// When (ISO 8601 UTC).
    public var at: String

    /// A revocation as answered.
    public init(type: String, percentage: Int? = nil, at: String) {
        self.type = type
        self.percentage = percentage
        self.at = at
    }
}
