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
    /// The transaction as Apple signed it, before `RefundRules.settled` judges its refund: a revocation carries
    /// its type (`REFUND_FULL` when Apple names none or one added later) and percentage, with every unit revoked.
    package var purchase: PurchaseTransaction {
        var purchase = PurchaseTransaction(
            id: transactionId, originalId: originalTransactionId, productId: productId, purchaseDate: purchaseDate,
            expiresDate: expiresDate, revocationDate: revocationDate, quantity: quantity, appAccountToken: appAccountToken,
            environment: environment, signedDate: signedDate)
        purchase.ownership = inAppOwnershipType == "FAMILY_SHARED" ? .familyShared : .purchased
        if let revocationDate {
            purchase.revocation = PurchaseRevocation(
                kind: Self.revocationKind(revocationType), percentage: revocationPercentage, at: revocationDate,
                revokedQuantity: quantity)
        }
        return purchase
    }

    /// Apple's `revocationType` as Depot names it.
    static func revocationKind(_ type: String?) -> PurchaseRevocation.Kind {
        switch type {
        case "REFUND_PRORATED": .refundProrated
        case "FAMILY_REVOKE": .familyRevoke
        default: .refundFull
        }
    }
}
