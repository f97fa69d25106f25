#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotCore
#endif

/// A Play product's rent option, as configured (`googlePlay.products` entry with `rental`): its terms, and the id of
/// the purchase option that rents it. Without an id every purchase of the product is a rental (a product sold only
/// for rent); with one, a purchase is a rental when the Developer API says it was bought with that purchase option,
/// bought outright when it names another and does not mark it rented (`rentOfferDetails`), and cannot be told when it
/// marks it rented with another rent option (whose terms are not these).
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

    /// Whether a purchase Google says was bought with `purchaseOptionId`, marked rented or not, is this rental; nil
    /// when Google marks it rented with another purchase option (or names none): another rent option, whose terms are
    /// unknown here, so neither these terms nor a purchase bought outright.
    package func rents(purchaseOptionId bought: String?, markedRental: Bool) -> Bool? {
        guard let purchaseOptionId else { return true }
        if bought == purchaseOptionId { return true }
        return markedRental ? nil : false
    }
}
