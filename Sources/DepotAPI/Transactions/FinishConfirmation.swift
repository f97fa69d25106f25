/// The answer to `POST /v1/transactions/{id}/finish`.
public struct FinishConfirmation: Sendable, Equatable, Codable {
    /// The transaction, now `finished`.
    public var transaction: RedeemedTransaction
    /// True once the server recorded the delivery: the app may complete the purchase at its store now
    /// (StoreKit's `finish()`; for Google Play, as `storeFinish` says).
    public var finishStoreKitTransaction: Bool
    /// Who completes the purchase at its store: `server` (Depot, through its outbox; the app's own call is then
    /// optional and harmless), `app` (Depot does not call the store: the app must: StoreKit's `finish()`, or
    /// Play Billing's `acknowledgePurchase` / `consumeAsync`), `not-applicable` (the transaction's environment
    /// has no store server: the app completes it as ever). Nil from a server that does not say.
    public var storeFinish: String?
    /// The same, as a sentence for people.
    public var storeFinishDetail: String?
    /// `storeFinish` for an App Store transaction, under its first name; nil for other stores.
    public var appleFinish: String?
    /// `storeFinishDetail` for an App Store transaction, under its first name; nil for other stores.
    public var appleFinishDetail: String?

    /// A finish answer.
    public init(
        transaction: RedeemedTransaction, finishStoreKitTransaction: Bool, storeFinish: String?, storeFinishDetail: String?,
        appleFinish: String?, appleFinishDetail: String?
    ) {
        self.transaction = transaction
        self.finishStoreKitTransaction = finishStoreKitTransaction
        self.storeFinish = storeFinish
        self.storeFinishDetail = storeFinishDetail
        self.appleFinish = appleFinish
        self.appleFinishDetail = appleFinishDetail
    }
}
