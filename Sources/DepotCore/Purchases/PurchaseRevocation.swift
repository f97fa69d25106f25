/// What a store took back of a purchase, and how: a refund in full or prorated (Apple's `revocationType` and
/// `revocationPercentage`), a family sharing revoked, or a Google Play void (in full or of some units).
///
/// A purchase whose every unit is revoked is revoked (``PurchaseTransaction/revocationDate`` set); one revoked in
/// part keeps its entitlement for the units that remain (``revokedQuantity`` below its quantity), and one whose
/// prorated refund a product's policy keeps (``ProratedRefundPolicy/keep``) records the refund with no unit revoked.
public struct PurchaseRevocation: Sendable, Equatable, Hashable, Codable {
    /// How the store took the purchase back. The raw values are the public contract's (`revocation.type`).
    public enum Kind: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
        /// Apple's `REFUND_FULL` (or a revocation that names no type).
        case refundFull
        /// Apple's `REFUND_PRORATED`: part of the purchase (a percentage of the whole quantity) refunded.
        case refundProrated
        /// Apple's `FAMILY_REVOKE`: the family member who bought it stopped sharing it.
        case familyRevoke
        /// Google Play voided the purchase (a refund, a chargeback), in full or of some units.
        case voided
    }

    /// How it was taken back.
    public var kind: Kind
    /// For Apple, the share refunded in milliunits of the whole quantity (100000 is all of it), when Apple said.
    public var percentage: Int?
    /// When, in milliseconds since 1970.
    public var at: Int64
    /// How many units are revoked: 0 up to the purchase's quantity.
    public var revokedQuantity: Int

    /// A revocation of `revokedQuantity` units.
    public init(kind: Kind, percentage: Int? = nil, at: Int64, revokedQuantity: Int) {
        self.kind = kind
        self.percentage = percentage
        self.at = at
        self.revokedQuantity = revokedQuantity
    }

    /// The percentages a store may state, in milliunits: none to all.
    public static let percentages = 0...100_000
}
