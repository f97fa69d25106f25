import DepotCore

/// Why a delivery flow refused: each case is one answer the app can act on. The server maps every case to its
/// error code in one place.
package enum DeliveryError: Error, Sendable, Equatable {
    /// The app's `appAccountToken` is not a UUID.
    case invalidAccountToken
    /// The `deviceId` beside an app receipt is not a UUID.
    case invalidDeviceId
    /// A finish without the finish token from the redeem answer.
    case finishTokenRequired
    /// No such transaction was redeemed here, or the finish token is not its (the two are not told apart).
    case unknownTransaction
    /// The product is not in the catalog.
    case unknownProduct(productId: String)
    /// The store refunded or revoked the purchase.
    case revoked
    /// The rental ended (seconds since 1970): its rental period from the purchase, or its expiration period from the
    /// first confirmed delivery, ran out.
    case rentalExpired(endedAt: Int64)
    /// The consumable was already delivered and finished.
    case consumableFinished
    /// The confirmed deliveries are not what was offered: contents not confirmed, contents with another digest.
    case deliveryMismatch(missing: [String], wrongDigest: [String])
    /// Nothing was offered for the transaction yet.
    case nothingDelivered
    /// A restore carries more transactions than one restore may.
    case tooManyTransactions(limit: Int)
    /// Too many restores from one address; retry after the wait.
    case restoreRateLimited(retryAfterSeconds: Int64)
    /// The transaction's redemptions look like sharing; retry after the wait.
    case irregularActivity(retryAfterSeconds: Int64)
    /// The store's signed purchase was refused by its verifier.
    case purchaseRefused(PurchaseRefusal)
    /// The purchase presented is not the one recorded under its transaction id (another store, product or
    /// purchase token): nothing was recorded.
    case transactionConflict(transactionId: String)
    /// The ledger cannot be reached.
    case ledgerUnavailable
    /// A bundle the purchase is entitled to cannot be served by this instance now (missing from its disk and from the
    /// object store, or damaged there); retry after the wait. Nothing was offered.
    case bundleUnavailable(retryAfterSeconds: Int64)
    /// The App Store Server API, the authority over app receipts where it is configured, could not be asked;
    /// retry after the wait. Nothing was recorded.
    case storeUnavailable(retryAfterSeconds: Int64)
}
