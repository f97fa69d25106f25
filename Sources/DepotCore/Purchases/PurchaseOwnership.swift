/// Who owns a purchase: the buyer, or a family member it is shared with (App Store Family Sharing,
/// `inAppOwnershipType`). The raw values are the public contract's (`ownership` in a transaction's answer).
public enum PurchaseOwnership: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// Bought by the account that presents it.
    case purchased
    /// Shared with the account that presents it by the family member who bought it (`FAMILY_SHARED`).
    case familyShared
}
