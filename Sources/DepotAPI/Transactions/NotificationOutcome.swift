/// The answer to a store notification: 200 with what was done, so the store stops retrying.
public struct NotificationOutcome: Codable, Sendable {
    /// The notification's id.
    public var notificationUUID: String
    /// Whether it had been recorded already (nothing was done again).
    public var duplicate: Bool
    /// What was done, for people (`revoked`, `reinstated`, `transaction-updated`, ...).
    public var effect: String
    /// For a CONSUMPTION_REQUEST: `DELIVERED` or an `UNDELIVERED_...` reason.
    public var deliveryStatus: String?

    /// An outcome as answered.
    public init(notificationUUID: String, duplicate: Bool, effect: String, deliveryStatus: String? = nil) {
        self.notificationUUID = notificationUUID
        self.duplicate = duplicate
        self.effect = effect
        self.deliveryStatus = deliveryStatus
    }
}
