#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
#endif

/// A Play product's rent option, as configured (`googlePlay.products` entry with `rental`): its terms, and the id of
/// the purchase option that rents it. Without an id every purchase of the product is a rental (a product sold only
/// for rent); with one, a purchase is a rental when the Developer API says it was bought with that purchase option
/// or marks it rented (`rentOfferDetails`), and is bought outright otherwise.
package struct GooglePlayRentOption: Sendable, Equatable {
    /// The rental and expiration periods.
    package var terms: RentalTerms
    /// The rent purchase option's id in Play Console; nil when the product is only rented.
    package var purchaseOptionId: String?

    /// A rent option as configured.
    package init(terms: RentalTerms, purchaseOptionId: String?) {
        self.terms = terms
        self.purchaseOptionId = purchaseOptionId
    }

    /// Whether a purchase Google says was bought with `purchaseOptionId`, marked rented or not, is this rental.
    package func rents(purchaseOptionId bought: String?, markedRental: Bool) -> Bool {
        guard let purchaseOptionId else { return true }
        return markedRental || bought == purchaseOptionId
    }
}
