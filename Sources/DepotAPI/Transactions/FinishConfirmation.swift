/// The answer to `POST /v1/transactions/{id}/finish`.
public struct FinishConfirmation: Sendable, Equatable, Codable {
    /// The transaction, now `finished`.
    public var transaction: RedeemedTransaction
    /// True once the server recorded the delivery: the app may call StoreKit's `finish()` now.
    public var finishStoreKitTransaction: Bool
    /// Who finishes the transaction at the store: `server` (Depot, through its outbox; the app's own `finish()`
    /// is then optional and harmless), `app` (Depot does not call the store: the app must call `finish()`),
    /// `not-applicable` (the transaction's environment has no store server: the app calls `finish()` as ever).
    /// Nil from a server that does not say.
    public var appleFinish: String?
    /// The same, as a sentence for people.
    public var appleFinishDetail: String?

    /// A finish answer.
    public init(
        transaction: RedeemedTransaction, finishStoreKitTransaction: Bool, appleFinish: String?, appleFinishDetail: String?
    ) {
        self.transaction = transaction
        self.finishStoreKitTransaction = finishStoreKitTransaction
        self.appleFinish = appleFinish
        self.appleFinishDetail = appleFinishDetail
    }
}
