import DepotAPI
import DepotCore
import DepotServices

extension DepotError {
    /// The answer to a delivery flow's refusal: its code from the table, and a sentence for the app's developer.
    init(_ error: DeliveryError) {
        switch error {
        case .invalidAccountToken:
            self.init(.invalidAccountToken, "appAccountToken must be a UUID such as StoreKit's appAccountToken")
        case .invalidDeviceId:
            self.init(.invalidDeviceId, "deviceId must be a UUID: the app's identifierForVendor")
        case .finishTokenRequired:
            self.init(.finishTokenRequired, "a finish needs \"finishToken\", from the answer to the redeem of this transaction")
        case .unknownTransaction:
            self.init(.unknownTransaction, "no such transaction was redeemed here")
        case .unknownProduct(let productId):
            self.init(.unknownProduct, "product \(productId) is not sold here")
        case .revoked:
            self.init(.revoked, "the store refunded, revoked or voided this purchase")
        case .rentalExpired(let endedAt):
            self.init(.rentalExpired, "this rental ended at \(UTCTimestamp.format(endedAt))")
        case .consumableFinished:
            self.init(.consumableFinished, "this consumable was already delivered and finished")
        case .deliveryMismatch(let missing, let wrongDigest):
            var parts: [String] = []
            if !missing.isEmpty { parts.append("not confirmed: \(missing.joined(separator: ", "))") }
            if !wrongDigest.isEmpty { parts.append("wrong digest: \(wrongDigest.joined(separator: ", "))") }
            self.init(.deliveryMismatch, "the transaction is not finished; " + parts.joined(separator: "; "))
        case .nothingDelivered:
            self.init(
                .nothingDelivered, "nothing was offered for this transaction yet; redeem it and download its content before finishing")
        case .tooManyTransactions(let limit):
            self.init(.tooManyTransactions, "restore at most \(limit) transactions at once")
        case .restoreRateLimited(let wait):
            self.init(.restoreRateLimited, "too many restores from this address; try again in \(wait) seconds", retryAfterSeconds: wait)
        case .irregularActivity(let wait):
            self.init(
                .irregularActivity, "this transaction was redeemed by too many accounts or from too many places; it is slowed down",
                retryAfterSeconds: wait)
        case .purchaseRefused(let refusal):
            self.init(refusal)
        case .transactionConflict(let transactionId):
            self.init(
                .transactionConflict,
                "transaction \(transactionId) was recorded as another purchase (store, product or purchase token); nothing was recorded")
        case .ledgerUnavailable:
            self.init(.ledgerUnavailable, "the ledger cannot be reached; try again")
        case .storeUnavailable(let wait):
            self.init(
                .storeUnavailable, "the App Store could not be asked about this purchase; nothing was recorded, try again",
                retryAfterSeconds: wait)
        case .bundleUnavailable(let wait):
            self.init(
                .bundleUnavailable, "a bundle this purchase entitles cannot be served right now; nothing was offered, try again",
                retryAfterSeconds: wait)
        }
    }

    /// The answer to a refused signed purchase: the table's code of the same name (unreadable input is 400,
    /// another app's data or anything untrusted 403); a code the table lacks is answered as `signature-invalid`.
    init(_ refusal: PurchaseRefusal) {
        self.init(ErrorCode(rawValue: refusal.code) ?? .signatureInvalid, refusal.message)
    }
}
