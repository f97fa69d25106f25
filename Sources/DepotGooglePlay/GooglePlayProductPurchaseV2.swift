/// A one-time purchase as `purchases.productsv2.getproductpurchasev2` answers it: the fields Depot reads of its
/// line items (the others are ignored).
public struct GooglePlayProductPurchaseV2: Decodable, Sendable, Equatable {
    /// One product bought in the purchase.
    public struct LineItem: Decodable, Sendable, Equatable {
        /// The Play product id.
        public var productId: String?
        /// The offer and purchase option it was bought with.
        public var productOfferDetails: OfferDetails?

        /// A line item.
        public init(productId: String?, productOfferDetails: OfferDetails?) {
            self.productId = productId
            self.productOfferDetails = productOfferDetails
        }
    }

    /// A line item's offer: its purchase option, and for a rent option, `rentOfferDetails` (an empty object: a
    /// rental's periods are the product's rent option's, not the purchase's).
    public struct OfferDetails: Decodable, Sendable, Equatable {
        /// The purchase option's id.
        public var purchaseOptionId: String?
        /// Whether Google marked the line item a rental (`rentOfferDetails` present, whatever it holds).
        public var isRental: Bool

        private enum CodingKeys: String, CodingKey {
            case purchaseOptionId, rentOfferDetails
        }

        /// Offer details.
        public init(purchaseOptionId: String?, isRental: Bool) {
            self.purchaseOptionId = purchaseOptionId
            self.isRental = isRental
        }

        /// Reads the purchase option leniently (a value that is not a string reads as absent) and a rental by the
        /// presence of `rentOfferDetails`.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            purchaseOptionId = (try? container.decodeIfPresent(String.self, forKey: .purchaseOptionId)) ?? nil
            isRental = container.contains(.rentOfferDetails) && !((try? container.decodeNil(forKey: .rentOfferDetails)) ?? false)
        }
    }

    /// The products bought (one for a purchase made through Play Billing today).
    public var productLineItem: [LineItem]?

    /// A purchase record.
    public init(productLineItem: [LineItem]?) {
        self.productLineItem = productLineItem
    }
}
