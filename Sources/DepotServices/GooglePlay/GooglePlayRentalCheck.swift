import DepotCore
import DepotGooglePlay
import DepotTrust
import Logging

/// Whether a Google Play purchase of a product with a named rent option was rented: the Developer API's
/// `purchases.productsv2` says which purchase option each line item was bought with (the signed purchase data does
/// not). A rental carries the rent option's terms; a purchase bought outright carries none. When Google cannot be
/// asked the purchase is refused for now (503 `unavailable`, to be presented again): taken for a purchase bought
/// outright, a rental would entitle for good.
package struct GooglePlayRentalCheck: Sendable {
    let client: GooglePlayDeveloperAPIClient
    let logger: Logger

    /// Rentals asked of `client`.
    package init(client: GooglePlayDeveloperAPIClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// `purchase` with its rental terms when Google says it was bought with `option`'s purchase option (or marks it
    /// rented), without them otherwise.
    package func judged(_ purchase: VerifiedPurchase, option: GooglePlayRentOption) async throws(PurchaseRefusal) -> VerifiedPurchase {
        var transaction = purchase.transaction
        guard let token = transaction.purchaseToken else { return purchase }
        let held: GooglePlayProductPurchaseV2
        do {
            held = try await client.productPurchaseV2(purchaseToken: token)
        } catch {
            logger.warning(
                "Google Play purchase option not read; the purchase is refused for now",
                metadata: ["transaction": "\(transaction.id)", "error": "\(error)"])
            throw PurchaseRefusal(
                code: "unavailable",
                message: "Google Play could not be asked whether this purchase is a rental; present it again later")
        }
        guard let rented = Self.rents(held, storeProductId: transaction.storeProductId, option: option) else {
            logger.warning(
                "Google Play's purchase lists no line item for its product, or rents it with another rent option; the purchase is refused for now",
                metadata: ["transaction": "\(transaction.id)"])
            throw PurchaseRefusal(
                code: "unavailable",
                message: "Google Play did not say how this purchase was bought; present it again later")
        }
        transaction.rental = rented ? option.terms : nil
        transaction.rentalToldByStore = rented ? true : nil
        return VerifiedPurchase(store: purchase.store, transaction: transaction)
    }

    /// Whether Google's account of a purchase of `storeProductId` says it was rented with `option`: its line item for
    /// the product (the only one, when none names it) names the rent option; one naming another option without
    /// `rentOfferDetails`, or without offer details (a purchase made before purchase options), was bought outright.
    /// Nil when no line item is the product's, or it was rented with another rent option: that cannot be told, and is
    /// never taken for a purchase bought outright nor given `option`'s terms.
    package static func rents(_ held: GooglePlayProductPurchaseV2, storeProductId: String?, option: GooglePlayRentOption) -> Bool? {
        let items = held.productLineItem ?? []
        guard let item = items.first(where: { $0.productId == storeProductId }) ?? (items.count == 1 ? items.first : nil) else {
            return nil
        }
        guard let details = item.productOfferDetails else { return false }
        return option.rents(purchaseOptionId: details.purchaseOptionId, markedRental: details.isRental)
    }
}
