import DepotCore
import DepotGooglePlay
import DepotServices
import DepotTrust
import Foundation
import Testing

/// Which Google Play purchases are rentals, from `purchases.productsv2` answers in Google's shapes: the rent option's
/// id makes a rental, another purchase option or none a purchase bought outright, and an answer that lists no line item
/// for the product, or marks it rented with another rent option, cannot be told (never taken for a purchase bought
/// outright, nor given the configured option's terms).
@Suite struct GooglePlayRentalCheckTests {
    static let option = GooglePlayRentOption(
        terms: RentalTerms(rentalPeriod: 259_200, expirationPeriod: 172_800), purchaseOptionId: "rent-3d")

    static func rents(_ json: String, product: String? = "movie", option: GooglePlayRentOption = option) throws -> Bool? {
        let held = try JSONDecoder().decode(GooglePlayProductPurchaseV2.self, from: Data(json.utf8))
        return GooglePlayRentalCheck.rents(held, storeProductId: product, option: option)
    }

    @Test(
        arguments: [
            (#"{"productLineItem": [{"productId": "movie", "productOfferDetails": {"purchaseOptionId": "rent-3d"}}]}"#, true),
            (
                #"{"productLineItem": [{"productId": "movie", "productOfferDetails": {"purchaseOptionId": "rent-3d", "rentOfferDetails": {}}}]}"#,
                true
            ),
            // Rented with another rent option: its terms are not the configured ones, so it cannot be told yet.
            (
                #"{"productLineItem": [{"productId": "movie", "productOfferDetails": {"purchaseOptionId": "x", "rentOfferDetails": {}}}]}"#,
                nil
            ),
            (#"{"productLineItem": [{"productId": "movie", "productOfferDetails": {"rentOfferDetails": {}}}]}"#, nil),
            (#"{"productLineItem": [{"productId": "movie", "productOfferDetails": {"purchaseOptionId": "buy"}}]}"#, false),
            (
                #"{"productLineItem": [{"productId": "movie", "productOfferDetails": {"purchaseOptionId": "buy", "rentOfferDetails": null}}]}"#,
                false
            ),
            (#"{"productLineItem": [{"productId": "movie", "productOfferDetails": {"purchaseOptionId": 7}}]}"#, false),
            (#"{"productLineItem": [{"productId": "movie"}]}"#, false),
            (#"{"productLineItem": [{"productId": "other", "productOfferDetails": {"purchaseOptionId": "rent-3d"}}]}"#, true),
            (
                #"{"productLineItem": [{"productId": "a", "productOfferDetails": {"purchaseOptionId": "rent-3d"}}, {"productId": "movie", "productOfferDetails": {"purchaseOptionId": "buy"}}]}"#,
                false
            ),
        ] as [(String, Bool?)])
    func purchasesAreToldApart(json: String, rented: Bool?) throws {
        #expect(try Self.rents(json) == rented)
    }

    @Test(arguments: [
        #"{}"#, #"{"productLineItem": []}"#,
        #"{"productLineItem": [{"productId": "a"}, {"productId": "b", "productOfferDetails": {"purchaseOptionId": "rent-3d"}}]}"#,
    ])
    func anAnswerWithoutTheProductCannotBeTold(json: String) throws {
        #expect(try Self.rents(json) == nil)
    }

    /// A product only rented (no purchase option named) is rented whatever the answer says of the option.
    @Test func aProductOnlyRentedIsAlwaysRented() throws {
        let onlyRented = GooglePlayRentOption(terms: Self.option.terms, purchaseOptionId: nil)
        #expect(
            try Self.rents(
                #"{"productLineItem": [{"productId": "movie", "productOfferDetails": {"purchaseOptionId": "buy"}}]}"#,
                option: onlyRented) == true)
    }
}
