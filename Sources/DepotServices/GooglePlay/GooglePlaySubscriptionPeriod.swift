import DepotCore
import DepotGooglePlay
import Logging

/// A Google Play subscription's period from the Developer API: the signed purchase the app presents says when
/// the subscription was bought, not until when it runs, so its expiry is asked of Google at each redeem. When
/// Google cannot be asked, the purchase keeps no expiry and entitles its product's offline period, as without
/// the Developer API.
package struct GooglePlaySubscriptionPeriod: Sendable {
    let client: GooglePlayDeveloperAPIClient
    let logger: Logger

    /// Periods asked of `client`.
    package init(client: GooglePlayDeveloperAPIClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// `purchase` with the expiry Google holds for it, judged by its purchase type (`GooglePlayPurchaseType`), and
    /// whether Google answered; unanswered, the offline period and judgement stand.
    package func withExpiry(_ purchase: VerifiedPurchase) async -> (purchase: VerifiedPurchase, askedGoogle: Bool) {
        var transaction = purchase.transaction
        guard let productId = transaction.storeProductId, let token = transaction.purchaseToken else { return (purchase, false) }
        do {
            let held = try await client.subscriptionPurchase(subscriptionId: productId, purchaseToken: token)
            transaction.environment = GooglePlayPurchaseType.environment(held.purchaseType)
            if let expiry = held.expiresAtMillis, expiry > 0 { transaction.expiresDate = expiry }
            return (VerifiedPurchase(store: purchase.store, transaction: transaction), true)
        } catch {
            logger.warning(
                "Google Play subscription period not read; the offline period applies",
                metadata: ["transaction": "\(transaction.id)", "error": "\(error)"])
            return (purchase, false)
        }
    }
}
