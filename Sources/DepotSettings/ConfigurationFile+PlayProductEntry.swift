extension ConfigurationFile.GooglePlay {
    /// One `googlePlay.products` entry: a Depot product id, or `{"product": id, "rental": {"rentalPeriod",
    /// "expirationPeriod", "purchaseOptionId"}}`. Read without failing, so that a wrong shape is refused by the
    /// loader naming its key.
    enum ProductEntry: Decodable {
        /// The plain string: the Depot product id.
        case product(String)
        /// The object form.
        case entry(product: String?, rental: Rental?)
        /// Neither a string nor an object of string fields.
        case malformed

        /// The object form's `rental`.
        struct Rental: Decodable {
            var rentalPeriod: String?
            var expirationPeriod: String?
            var purchaseOptionId: String?
        }

        private struct Object: Decodable {
            var product: String?
            var rental: Rental?
        }

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                self = .product(text)
            } else if let object = try? Object(from: decoder) {
                self = .entry(product: object.product, rental: object.rental)
            } else {
                self = .malformed
            }
        }
    }
}
