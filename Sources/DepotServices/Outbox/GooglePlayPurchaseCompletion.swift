import DepotCore
import DepotGooglePlay
import DepotLedger

/// Completes a delivered Google Play purchase at Google: a consumable is consumed (so it may be bought again),
/// anything else acknowledged (`purchases.subscriptions.acknowledge` for a subscription). Google answers a second
/// acknowledge or consume with 400; a one-time purchase that Google already holds as acknowledged (or consumed)
/// counts as done, so a call repeated after a lost answer or an expired lease is harmless.
package struct GooglePlayPurchaseCompletion: Sendable {
    /// The Developer API.
    let client: GooglePlayDeveloperAPIClient

    /// Completion through `client`.
    package init(client: GooglePlayDeveloperAPIClient) { self.client = client }

    /// What is sent for a transaction of `type`.
    package enum Call: String, Sendable, Equatable {
        /// `purchases.products.acknowledge`.
        case acknowledgeProduct = "acknowledge"
        /// `purchases.products.consume`.
        case consumeProduct = "consume"
        /// `purchases.subscriptions.acknowledge`.
        case acknowledgeSubscription = "acknowledge-subscription"

        /// The call for a purchase of `type` (nil: the type is unknown, judged as a one-time product).
        package init(type: ProductType?) {
            switch type {
            case .consumable: self = .consumeProduct
            case .autoRenewable: self = .acknowledgeSubscription
            case .nonConsumable, .nonRenewing, .freeSubscription, nil: self = .acknowledgeProduct
            }
        }
    }

    /// Sends the call `stored` needs; returns which it was.
    @discardableResult
    package func complete(_ stored: LedgerTransaction, type: ProductType?) async throws(GooglePlayAPIError) -> Call {
        guard let productId = stored.transaction.storeProductId, let token = stored.transaction.purchaseToken else {
            throw GooglePlayAPIError(
                .configuration("transaction \(stored.transaction.id) has no Play product id and purchase token recorded"))
        }
        let call = Call(type: type)
        do {
            switch call {
            case .acknowledgeProduct: try await client.acknowledgeProduct(productId: productId, purchaseToken: token)
            case .consumeProduct: try await client.consumeProduct(productId: productId, purchaseToken: token)
            case .acknowledgeSubscription: try await client.acknowledgeSubscription(subscriptionId: productId, purchaseToken: token)
            }
        } catch {
            guard case .google(400, _, _) = error.kind, call != .acknowledgeSubscription,
                let held = try? await client.productPurchase(productId: productId, purchaseToken: token),
                call == .consumeProduct ? held.consumptionState == 1 : held.acknowledgementState == 1
            else { throw error }
        }
        return call
    }
}
