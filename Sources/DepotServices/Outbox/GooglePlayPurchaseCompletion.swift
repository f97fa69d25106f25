import DepotCore
import DepotGooglePlay
import DepotLedger

/// Completes a delivered Google Play purchase at Google: a consumable is consumed (so it may be bought again),
/// anything else acknowledged (`purchases.subscriptions.acknowledge` for a subscription). Google answers a second
/// acknowledge or consume with 400; a purchase that Google already holds as acknowledged (or consumed) counts as
/// done, so a call repeated after a lost answer, an expired lease or the app's own acknowledgement is harmless.
package struct GooglePlayPurchaseCompletion: Sendable {
    /// The Developer API.
    package let client: GooglePlayDeveloperAPIClient

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
            guard case .google(400, _, _) = error.kind, await isDone(call, productId: productId, token: token) else { throw error }
        }
        return call
    }

    /// Whether Google already holds the purchase as `call` leaves it (acknowledged, or consumed).
    private func isDone(_ call: Call, productId: String, token: String) async -> Bool {
        switch call {
        case .acknowledgeSubscription:
            (try? await client.subscriptionPurchase(subscriptionId: productId, purchaseToken: token))?.acknowledgementState == 1
        case .consumeProduct:
            (try? await client.productPurchase(productId: productId, purchaseToken: token))?.consumptionState == 1
        case .acknowledgeProduct:
            (try? await client.productPurchase(productId: productId, purchaseToken: token))?.acknowledgementState == 1
        }
    }
}
