/// What Depot can state about whether a transaction's content reached the customer, in the terms an
/// answer to an App Store CONSUMPTION_REQUEST uses.
public enum DeliveryEvidence: String, Sendable, Equatable, Codable {
    /// The app confirmed every content with its digest.
    case confirmed
    /// Every bundle was served in full at the origin, but the app never confirmed.
    case servedUnconfirmed = "served-unconfirmed"
    /// Some content was never served in full.
    case notDelivered = "not-delivered"

    /// One delivery's facts.
    public struct Delivery: Sendable, Equatable {
        /// Whether the app confirmed it.
        public var confirmed: Bool
        /// Distinct bytes of the bundle served.
        public var bytesCovered: Int64
        /// The bundle's size.
        public var size: Int64

        /// Creates the facts of one delivery.
        public init(confirmed: Bool, bytesCovered: Int64, size: Int64) {
            self.confirmed = confirmed
            self.bytesCovered = bytesCovered
            self.size = size
        }
    }

    /// The evidence for a transaction's deliveries; no deliveries at all is `notDelivered`.
    public static func assess(_ deliveries: [Delivery]) -> DeliveryEvidence {
        guard !deliveries.isEmpty else { return .notDelivered }
        if deliveries.allSatisfy(\.confirmed) { return .confirmed }
        if deliveries.allSatisfy({ $0.confirmed || $0.bytesCovered >= $0.size }) { return .servedUnconfirmed }
        return .notDelivered
    }

    /// The ConsumptionRequest `deliveryStatus`: content that reached the device is `DELIVERED`;
    /// otherwise `UNDELIVERED_OTHER` (Depot cannot tell a quality issue or a wrong item).
    public var deliveryStatus: String {
        switch self {
        case .confirmed, .servedUnconfirmed: "DELIVERED"
        case .notDelivered: "UNDELIVERED_OTHER"
        }
    }
}
