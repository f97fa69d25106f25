import DepotCore
import DepotTrust

extension ConfigurationLoader {
    /// `googlePlay.products`' entries: Play product id → Depot product id, and the rent option of each entry that has
    /// `rental` (`rentalPeriod` and `expirationPeriod` ISO 8601 durations, strictly read, each from 1 second to 3650
    /// days; `purchaseOptionId` optional, at most 256 bytes). A wrong shape or value is an error naming its key.
    static func productEntries(
        _ entries: [String: ConfigurationFile.GooglePlay.ProductEntry], in file: String
    ) throws(ConfigurationError) -> (products: [String: String], rentals: [String: GooglePlayRentOption]) {
        var products: [String: String] = [:]
        var rentals: [String: GooglePlayRentOption] = [:]
        for (playId, entry) in entries.sorted(by: { $0.key < $1.key }) {
            let key = "googlePlay.products.\(playId)"
            switch entry {
            case .product(let productId):
                products[playId] = productId
            case .entry(let productId, let rental):
                guard let productId else {
                    throw ConfigurationError("\(file): \(key).product must name the Depot product it sells")
                }
                products[playId] = productId
                if let rental { rentals[playId] = try rentOption(rental, key: "\(key).rental", in: file) }
            case .malformed:
                throw ConfigurationError(
                    "\(file): \(key) must be a product id, or {\"product\": id, \"rental\": {\"rentalPeriod\": \"P3D\", \"expirationPeriod\": \"PT48H\"}} with string values"
                )
            }
        }
        return (products, rentals)
    }

    /// One entry's `rental`.
    static func rentOption(
        _ rental: ConfigurationFile.GooglePlay.ProductEntry.Rental, key: String, in file: String
    ) throws(ConfigurationError) -> GooglePlayRentOption {
        func seconds(_ text: String?, _ name: String) throws(ConfigurationError) -> Int64 {
            guard let text else {
                throw ConfigurationError("\(file): \(key).\(name) is required: an ISO 8601 duration such as P3D or PT48H")
            }
            switch ISODuration.seconds(text) {
            case .success(let seconds): return seconds
            case .failure(let refusal):
                throw ConfigurationError("\(file): \(key).\(name) \"\(text.prefix(64))\" \(refusal.reason)")
            }
        }
        let terms = RentalTerms(
            rentalPeriod: try seconds(rental.rentalPeriod, "rentalPeriod"),
            expirationPeriod: try seconds(rental.expirationPeriod, "expirationPeriod"))
        if let id = rental.purchaseOptionId {
            guard !id.isEmpty, id.utf8.count <= 256 else {
                throw ConfigurationError("\(file): \(key).purchaseOptionId must be the rent option's id, 1 to 256 bytes")
            }
        }
        return GooglePlayRentOption(terms: terms, purchaseOptionId: rental.purchaseOptionId)
    }
}
