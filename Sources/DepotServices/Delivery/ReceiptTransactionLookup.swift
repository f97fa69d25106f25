import DepotAppStore
import DepotCore
import DepotTrust
import Logging

/// Apple as the authority over a StoreKit 1 app receipt's purchases, when the App Store Server API is configured:
/// each purchase a verified receipt holds is looked up with Get Transaction Info, the signed answer is verified
/// as any signed transaction is, and it decides the purchase's revocation and subscription period (its
/// `revocationDate` and `expiresDate` replace the receipt's, its `signedDate` orders them against facts recorded
/// before).
///
/// A receipt of an environment the API is not configured for (Xcode's, or Sandbox where only Production is
/// sent) is left as the receipt says: Apple holds no such transactions. When Apple cannot be asked (no answer,
/// a 429 or 5xx, an answer that does not verify or names another transaction), the purchase is not delivered:
/// 503 `store-unavailable` with `Retry-After`, never a silent fall back to the receipt alone. A transaction Apple
/// does not know (404) is refused (`transaction-not-at-store`), and an answer naming another product than the
/// receipt (`payload-inconsistent`).
package struct ReceiptTransactionLookup: Sendable {
    let client: AppStoreServerAPIClient
    let verifier: AppStoreVerifier
    /// The environments Get Transaction Info is sent for (`appStoreServerAPI.baseURLs`).
    let environments: Set<String>
    let logger: Logger

    /// The seconds a client is asked to wait when Apple gave no `Retry-After`.
    package static let defaultRetryAfterSeconds: Int64 = 10

    /// A lookup through `client`, whose answers `verifier` checks, for `environments`.
    package init(client: AppStoreServerAPIClient, verifier: AppStoreVerifier, environments: Set<String>, logger: Logger) {
        self.client = client
        self.verifier = verifier
        self.environments = environments
        self.logger = logger
    }

    /// `purchase` (an in-app purchase of a verified receipt) as Apple holds it now.
    package func confirmed(_ purchase: VerifiedPurchase) async throws(DeliveryError) -> VerifiedPurchase {
        let environment = purchase.transaction.environment
        guard environments.contains(environment) else { return purchase }
        let id = purchase.id
        let jws: String
        do {
            jws = try await client.transactionInfo(id, environment: environment)
        } catch {
            if case .apple(404, _, _) = error.kind {
                throw .purchaseRefused(.transactionNotAtStore)
            }
            logger.warning(
                "Get Transaction Info failed for an app receipt's transaction; the redeem is answered 503",
                metadata: ["transaction": "\(id)", "error": "\(error)"])
            throw .storeUnavailable(retryAfterSeconds: Self.retryAfter(error.retryAfter))
        }
        let signed: SignedTransaction
        do {
            signed = try await verifier.verifyTransaction(jws)
        } catch {
            logger.error(
                "the App Store's answer to Get Transaction Info does not verify; the redeem is answered 503",
                metadata: ["transaction": "\(id)", "code": "\(error.code)", "error": "\(error.message)"])
            throw .storeUnavailable(retryAfterSeconds: Self.defaultRetryAfterSeconds)
        }
        guard signed.transactionId == id else {
            logger.error(
                "Get Transaction Info answered another transaction; the redeem is answered 503",
                metadata: ["transaction": "\(id)", "answered": "\(signed.transactionId)"])
            throw .storeUnavailable(retryAfterSeconds: Self.defaultRetryAfterSeconds)
        }
        guard signed.productId == purchase.productId else {
            throw .purchaseRefused(
                PurchaseRefusal(
                    code: "payload-inconsistent",
                    message: "the App Store holds transaction \(id) as a purchase of another product than the app receipt says"))
        }
        var transaction = purchase.transaction
        transaction.revocationDate = signed.revocationDate
        transaction.expiresDate = signed.expiresDate ?? transaction.expiresDate
        transaction.signedDate = signed.signedDate
        transaction.appAccountToken = signed.appAccountToken ?? transaction.appAccountToken
        return VerifiedPurchase(store: .appStore, transaction: transaction)
    }

    /// Apple's `Retry-After` in whole seconds, 1 to 3600, else the default.
    static func retryAfter(_ field: String?) -> Int64 {
        guard let field, let seconds = AppStoreAPIRetryPolicy.retryAfterSeconds(field) else { return defaultRetryAfterSeconds }
        return Int64(min(3_600, max(1, seconds.rounded(.up))))
    }
}

extension PurchaseRefusal {
    /// A receipt's transaction the App Store Server API does not know (Get Transaction Info answered 404).
    package static let transactionNotAtStore = PurchaseRefusal(
        code: "transaction-not-at-store",
        message: "the App Store does not know this app receipt's transaction (Get Transaction Info answered 404)")
}
