#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
#endif
import Foundation

extension AppReceiptVerifier {
    /// The longest base64 text read: ``AppReceiptLimits/maximumBytes`` encoded, with room for line breaks.
    package static let maximumBase64Length = AppReceiptLimits.maximumBytes / 3 * 4 + AppReceiptLimits.maximumBytes / 32 + 8

    /// Verifies a receipt as the app sends it (standard base64 of `appStoreReceiptURL`'s contents; white space
    /// ignored) and returns every in-app purchase record as a verified App Store purchase.
    package func verifyPurchases(base64 text: String) async throws(PurchaseRefusal) -> [VerifiedPurchase] {
        do throws(AppStoreVerificationError) {
            guard text.utf8.count <= Self.maximumBase64Length else {
                throw AppStoreVerificationError(
                    .receiptMalformed, "the app receipt is longer than \(AppReceiptLimits.maximumBytes) bytes")
            }
            guard let bytes = Data(base64Encoded: text.filter { !$0.isWhitespace }), !bytes.isEmpty else {
                throw AppStoreVerificationError(.receiptMalformed, "the app receipt is not standard base64")
            }
            let receipt = try await verify(Array(bytes))
            return try receipt.inAppPurchases.map { record throws(AppStoreVerificationError) in
                VerifiedPurchase(store: .appStore, transaction: try record.purchase(in: receipt))
            }
        } catch {
            throw error.refusal
        }
    }

    /// Verifies a receipt and returns its in-app purchase with `transactionId` (the `SKPaymentTransaction`'s
    /// `transactionIdentifier`), refused as `transaction-not-in-receipt` when it holds none.
    package func verifyPurchase(base64 text: String, transactionId: String) async throws(PurchaseRefusal) -> VerifiedPurchase {
        let purchases = try await verifyPurchases(base64: text)
        guard let purchase = purchases.first(where: { $0.id == transactionId }) else {
            throw PurchaseRefusal.transactionNotInReceipt
        }
        return purchase
    }
}

extension PurchaseRefusal {
    /// A receipt that holds no in-app purchase with the transaction id asked for: the app refreshes its receipt
    /// (`SKReceiptRefreshRequest`) and tries again.
    package static let transactionNotInReceipt = PurchaseRefusal(
        code: "transaction-not-in-receipt",
        message: "the app receipt holds no in-app purchase with this transaction id; refresh the receipt and try again")
}

extension AppReceipt.InAppPurchase {
    /// The record as the ledger records a transaction: its cancellation date is its revocation, the receipt's
    /// creation date its signed date, the receipt's environment its environment.
    package func purchase(in receipt: AppReceipt) throws(AppStoreVerificationError) -> PurchaseTransaction {
        guard TransactionIdentifier.isAcceptable(transactionId), TransactionIdentifier.isAcceptable(originalTransactionId) else {
            throw AppStoreVerificationError(
                .payloadInconsistent, "an app receipt transaction id must be \(TransactionIdentifier.rule)")
        }
        if let expiresDate, expiresDate < purchaseDate {
            throw AppStoreVerificationError(.payloadInconsistent, "an app receipt subscription expires before it was bought")
        }
        return PurchaseTransaction(
            id: transactionId, originalId: originalTransactionId, productId: productId, purchaseDate: purchaseDate,
            expiresDate: expiresDate, revocationDate: cancellationDate, quantity: quantity,
            environment: receipt.environment, signedDate: receipt.creationDate, store: .appStore)
    }
}
