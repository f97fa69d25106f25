/// A transaction as the server records it.
public struct RedeemedTransaction: Sendable, Equatable, Codable {
    /// The store's transaction identifier.
    public var id: String
    /// The store that sold it: `app-store` or `google-play`. Nil from a server that does not say.
    public var store: String?
    /// The original transaction identifier.
    public var originalId: String
    /// The product bought.
    public var productId: String
    /// `pending` until delivery was confirmed, then `finished`.
    public var state: String
    /// The proof `finish` needs; present only in answers to redeem and restore (to the one that redeemed).
    public var finishToken: String?
    /// What the app presented for it, when it was an app receipt: `receipt`. Nil for a signed transaction or a
    /// Google Play purchase.
    public var proof: String?
    /// How many units were bought. Nil from a server that does not say.
    public var quantity: Int?
    /// How many of them the store took back: 0 unless refunded in part or whole. Nil from a server that does not say.
    public var revokedQuantity: Int?
    /// `purchased`, or `familyShared` when a family member's purchase is shared with the account. Nil from a server
    /// that does not say.
    public var ownership: String?
    /// What the store took back and how, once it refunded, revoked or voided any of it.
    public var revocation: TransactionRevocation?
    /// In a restore by account, what the transaction is when it is history the device no longer sees: `consumed`
    /// (a finished consumable), `expired` (a subscription with no period left) or `revoked`. Consumed and revoked
    /// ones carry no finish token and entitle no download. Nil for a purchase that still entitles, and elsewhere.
    public var history: String?
    /// For a Google Play rental, when it ends as known now (UTC, ISO 8601): the purchase plus the rent option's
    /// rental period, or, once the first delivery is confirmed, that delivery plus its expiration period when that is
    /// earlier. Absent for a purchase that is not rented.
    public var rentalEndsAt: String?

    /// A transaction as answered.
    public init(
        id: String, store: String? = nil, originalId: String, productId: String, state: String, finishToken: String? = nil
    ) {
        self.id = id
        self.store = store
        self.originalId = originalId
        self.productId = productId
        self.state = state
        self.finishToken = finishToken
    }
}
