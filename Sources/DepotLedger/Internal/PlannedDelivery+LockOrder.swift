import DepotCore

extension DeliveryConfirmation.Offer {
    /// Deliveries without repeats in one stable order (content id, version, digest), so that concurrent
    /// writers lock their rows in the same order and cannot deadlock.
    static func inLockOrder(_ deliveries: [Self]) -> [Self] {
        Array(Set(deliveries)).sorted { ($0.contentId, $0.version, $0.digest) < ($1.contentId, $1.version, $1.digest) }
    }
}
