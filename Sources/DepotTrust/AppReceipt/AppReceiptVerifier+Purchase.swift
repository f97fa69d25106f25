#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
#endif
import Foundation

extension AppReceiptVerifier {
    /// The longest base64 text read: ``AppReceiptLimits/maximumBytes`` encoded, with room for line breaks.
    package static let maximumBase64Length = AppReceiptLimits.maximumBytes / 3 * 4 + AppReceiptLimits.maximumBytes / 32 + 8

    /// Verifies a receipt as the app sends it (standard base64 of `appStoreReceiptURL`'s contents; white space
    /// ignored) and returns every in-app purchase record as a verified App Store purchase.
    ///
    /// With `deviceId` (the app's `identifierForVendor`), the receipt must have been issued to that device
    /// (``AppReceipt/isIssued(toDevice:)``), else `receipt-device-mismatch`; without it, a verifier that
    /// ``requiresDevice`` refuses with `receipt-device-required` before reading the receipt.
    package func verifyPurchases(base64 text: String, deviceId: UUID? = nil) async throws(PurchaseRefusal) -> [VerifiedPurchase] {
        if requiresDevice, deviceId == nil { throw PurchaseRefusal.receiptDeviceRequired }
        let receipt: AppReceipt
        do throws(AppStoreVerificationError) {
            guard text.utf8.count <= Self.maximumBase64Length else {
                throw AppStoreVerificationError(
                    .receiptMalformed, "the app receipt is longer than \(AppReceiptLimits.maximumBytes) bytes")
            }
            guard let bytes = Data(base64Encoded: text.filter { !$0.isWhitespace }), !bytes.isEmpty else {
                throw AppStoreVerificationError(.receiptMalformed, "the app receipt is not standard base64")
            }
            receipt = try await verify(Array(bytes))
        } catch {
            throw error.refusal
        }
        if let deviceId, !receipt.isIssued(toDevice: deviceId) { throw PurchaseRefusal.receiptDeviceMismatch }
        do throws(AppStoreVerificationError) {
            return try receipt.inAppPurchases.map { record throws(AppStoreVerificationError) in
                VerifiedPurchase(store: .appStore, transaction: try record.purchase(in: receipt))
            }
        } catch {
            throw error.refusal
        }
    }

    /// Verifies a receipt and returns its in-app purchase with `transactionId` (the `SKPaymentTransaction`'s
    /// `transactionIdentifier`), refused as `transaction-not-in-receipt` when it holds none.
    package func verifyPurchase(
        base64 text: String, transactionId: String, deviceId: UUID? = nil
    ) async throws(PurchaseRefusal) -> VerifiedPurchase {
        let purchases = try await verifyPurchases(base64: text, deviceId: deviceId)
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

extension PurchaseRefusal {
    /// A receipt presented with a device id it was not issued to (its hash does not match): a receipt copied
    /// from another device, or another app install's. Nothing is recorded.
    package static let receiptDeviceMismatch = PurchaseRefusal(
        code: "receipt-device-mismatch",
        message: "the app receipt was not issued to this device: its hash does not match deviceId, its opaque value and bundle id")

    /// A receipt presented without `deviceId` where the server requires it (`appStore.requireReceiptDevice`).
    package static let receiptDeviceRequired = PurchaseRefusal(
        code: "receipt-device-required",
        message: "this server requires \"deviceId\" (the app's identifierForVendor) beside the app receipt")
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
