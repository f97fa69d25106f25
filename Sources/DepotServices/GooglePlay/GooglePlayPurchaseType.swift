import DepotCore
import DepotGooglePlay
import Logging

/// Whether a Google Play purchase is a test one, as the Developer API says it (its `purchaseType`: 0 a license
/// tester's test purchase, 1 a promo code, 2 rewarded, absent an ordinary purchase). A promo code or rewarded
/// purchase is a real one, bought in production; only a test purchase is judged environment `Test`. Offline (no
/// Developer API, or Google cannot be asked) a purchase without `orderId` is judged a test one by its verifier.
package struct GooglePlayPurchaseType: Sendable {
    let client: GooglePlayDeveloperAPIClient
    let logger: Logger

    /// Purchase types asked of `client`.
    package init(client: GooglePlayDeveloperAPIClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The environment a purchase of Google's `purchaseType` is judged in: `Test` for a test purchase only.
    package static func environment(_ purchaseType: Int?) -> String {
        purchaseType == 0 ? "Test" : "Production"
    }

    /// `purchase` (a one-time product) judged by the purchase type Google holds for it, and whether Google answered;
    /// unanswered, the offline judgement stands. Units Google refunded (its `refundableQuantity` below the quantity)
    /// come as a void of those units, at `now` (milliseconds since 1970).
    package func judged(_ purchase: VerifiedPurchase, now: Int64) async -> (purchase: VerifiedPurchase, askedGoogle: Bool) {
        var transaction = purchase.transaction
        guard let productId = transaction.storeProductId, let token = transaction.purchaseToken else { return (purchase, false) }
        do {
            let held = try await client.productPurchase(productId: productId, purchaseToken: token)
            transaction.environment = Self.environment(held.purchaseType)
            if transaction.revocation == nil,
                let units = RefundRules.googlePlayUnits(
                    quantity: transaction.quantity, voidedQuantity: nil, refundableQuantity: held.refundableQuantity)
            {
                transaction.revocation = PurchaseRevocation(kind: .voided, at: now, revokedQuantity: units)
            }
            return (VerifiedPurchase(store: purchase.store, transaction: transaction), true)
        } catch {
            logger.warning(
                "Google Play purchase type not read; the offline judgement applies",
                metadata: ["transaction": "\(transaction.id)", "error": "\(error)"])
            return (purchase, false)
        }
    }
}
