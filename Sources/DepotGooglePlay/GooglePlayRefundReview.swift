import Foundation

/// The body of `orders.reviewrefund`: the developer's answer to a pending refund review (a chargeback Google lets
/// the developer speak to within 24 hours), with the purchase's usage as evidence.
public struct GooglePlayRefundReview: Sendable, Equatable, Encodable {
    /// Whether the developer would have Google grant the refund.
    public enum Preference: String, Sendable, Equatable, Encodable {
        /// Refuse it: the content was delivered.
        case decline = "DECLINE"
        /// Grant it in full: the content was not delivered.
        case approve = "APPROVE"
        /// No preference (what is sent when the customer's consent to share usage is not recorded).
        case neutral = "NEUTRAL"
    }

    /// One use of the purchase: for Depot, a delivery of its content.
    public struct UsageEvent: Sendable, Equatable, Encodable {
        /// When it happened, RFC 3339 in UTC.
        public var consumptionTime: String
        /// What was used, in words (at most 5,000 characters, Google's bound).
        public var consumptionItemDescription: String
        /// The app's obfuscated account id of the buyer, when the purchase carried one.
        public var obfuscatedAccountId: String?

        /// An event at `time` (seconds since 1970) describing `description`.
        public init(time: Int64, description: String, obfuscatedAccountId: String?) {
            self.consumptionTime = Self.rfc3339(time)
            self.consumptionItemDescription = String(description.prefix(Self.maximumDescriptionLength))
            self.obfuscatedAccountId = obfuscatedAccountId
        }

        /// Google refuses longer descriptions.
        public static let maximumDescriptionLength = 5_000

        static func rfc3339(_ seconds: Int64) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
    }

    /// The token of the review being answered, from the notification.
    public var pendingRefundToken: String
    /// Whether the customer could try the content before buying.
    public var sampleContentProvided: Bool
    /// The developer's preference.
    public var refundPreference: Preference
    /// How much of the purchase was used, in milliunits (0...100,000), when known.
    public var consumptionPercentageMilliunits: Int?
    /// The uses (Google refuses more than 1,000).
    public var consumptionUsageEvents: [UsageEvent]?

    /// Google refuses more usage events than this.
    public static let maximumUsageEvents = 1_000

    /// An answer; the percentage is clamped to 0...100,000 and the events to the first 1,000.
    public init(
        pendingRefundToken: String, sampleContentProvided: Bool, refundPreference: Preference,
        consumptionPercentageMilliunits: Int? = nil, consumptionUsageEvents: [UsageEvent]? = nil
    ) {
        self.pendingRefundToken = pendingRefundToken
        self.sampleContentProvided = sampleContentProvided
        self.refundPreference = refundPreference
        self.consumptionPercentageMilliunits = consumptionPercentageMilliunits.map { min(100_000, max(0, $0)) }
        self.consumptionUsageEvents = consumptionUsageEvents.map { Array($0.prefix(Self.maximumUsageEvents)) }
    }
}
