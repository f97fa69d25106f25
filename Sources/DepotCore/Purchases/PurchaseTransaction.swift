/// A verified store transaction (an App Store transaction or a Google Play purchase), reduced to what delivery
/// needs. Times are milliseconds since 1970, as both stores write them.
public struct PurchaseTransaction: Sendable, Equatable, Codable {
    /// The store's transaction identifier (for Google Play, the order id, or the purchase token's SHA-256 when
    /// the purchase has none).
    public var id: String
    /// The store that sold it.
    public var store: PurchaseStore
    /// The original transaction identifier: shared by every renewal of a subscription.
    public var originalId: String
    /// The product bought.
    public var productId: String
    /// When the purchase (or renewal) was charged.
    public var purchaseDate: Int64
    /// For an auto-renewable subscription, when this period ends.
    public var expiresDate: Int64?
    /// When the store refunded or revoked the purchase, if it did.
    public var revocationDate: Int64?
    /// Number of items bought (consumables).
    public var quantity: Int
    /// The publisher's account identifier the app attached, if any (a UUID string).
    public var appAccountToken: String?
    /// The App Store's `Production`, `Sandbox`, ...; for Google Play `Production`, or `Test` for a test
    /// purchase (one without an order id).
    public var environment: String
    /// When the App Store signed this account of the transaction (`signedDate`), if known: an older
    /// account never overrides a newer fact.
    public var signedDate: Int64?
    /// The store's own product id when it differs from Depot's (Google Play's product id), for calls to the
    /// store about this purchase.
    public var storeProductId: String?
    /// Google Play's purchase token: what the Developer API names a purchase by (acknowledge, consume, get).
    public var purchaseToken: String?
    /// Bought by the account presenting it, or shared with it by a family member.
    public var ownership: PurchaseOwnership = .purchased
    /// What the store took back, in full or in part, and how; nil when nothing was. As a store signs it, its
    /// ``PurchaseRevocation/revokedQuantity`` may still be the whole quantity: `RefundRules.settled` decides the
    /// units and whether the purchase is revoked (``revocationDate``) before it is recorded.
    public var revocation: PurchaseRevocation?
    /// A rented purchase's terms (a Google Play rent option); nil for a purchase that is not rented.
    public var rental: RentalTerms?
    /// Whether the store itself said this purchase was rented (Google's `purchases.productsv2`), not only Depot's
    /// configuration: only such terms are learnt by a transaction first recorded without them (bought outright); nil
    /// otherwise.
    public var rentalToldByStore: Bool?

    /// Creates a transaction.
    public init(
        id: String, originalId: String, productId: String, purchaseDate: Int64, expiresDate: Int64? = nil,
        revocationDate: Int64? = nil, quantity: Int = 1, appAccountToken: String? = nil, environment: String = "Production",
        signedDate: Int64? = nil, store: PurchaseStore = .appStore, storeProductId: String? = nil, purchaseToken: String? = nil
    ) {
        self.id = id
        self.store = store
        self.originalId = originalId
        self.productId = productId
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.quantity = quantity
        self.appAccountToken = appAccountToken
        self.environment = environment
        self.signedDate = signedDate
        self.storeProductId = storeProductId
        self.purchaseToken = purchaseToken
    }

    /// Whether the store took the purchase back: every unit of it.
    public var isRevoked: Bool { revocationDate != nil }

    /// How many units are revoked: all of them once revoked, else those a partial refund took back (0 when none).
    public var revokedQuantity: Int {
        isRevoked ? quantity : min(quantity, max(0, revocation?.revokedQuantity ?? 0))
    }
}
