#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
#endif

extension AppStoreVerifier: PurchaseVerifier {
    /// The App Store.
    package var store: PurchaseStore { .appStore }

    /// A StoreKit signed transaction (JWS), verified against the trusted roots, the app's bundle id and the
    /// accepted environments.
    package func verifyPurchase(_ signed: SignedPurchase) async throws(PurchaseRefusal) -> VerifiedPurchase {
        guard case .appStore(let jws) = signed else { throw .otherStore(signed.store, verifier: .appStore) }
        do {
            return VerifiedPurchase(store: .appStore, transaction: try await verifyTransaction(jws).purchase)
        } catch {
            throw error.refusal
        }
    }
}

extension AppStoreVerificationError {
    /// The refusal as the delivery flows and the error table name it: the verifier's code, which the table lists
    /// under the same name.
    package var refusal: PurchaseRefusal { PurchaseRefusal(code: code.description, message: message) }
}

extension SignedTransaction {
    /// The transaction as the ledger records it.
    package var purchase: PurchaseTransaction {
        PurchaseTransaction(
            id: transactionId, originalId: originalTransactionId, productId: productId, purchaseDate: purchaseDate,
            expiresDate: expiresDate, revocationDate: revocationDate, quantity: quantity, appAccountToken: appAccountToken,
            environment: environment, signedDate: signedDate)
    }
}
