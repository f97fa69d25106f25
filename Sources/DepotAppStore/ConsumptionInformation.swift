import Foundation
import NIOHTTP1

/// The body of Send Consumption Information (`ConsumptionRequest`, App Store Server API 1.19): what the
/// server knows of a purchase whose customer asked for a refund.
///
/// Apple's rules, kept by `init`: `customerConsented` is always true (Apple refuses anything else, and
/// nothing may be sent without the customer's consent); `deliveryStatus` is one of `DELIVERED`,
/// `UNDELIVERED_QUALITY_ISSUE`, `UNDELIVERED_WRONG_ITEM`, `UNDELIVERED_SERVER_OUTAGE`, `UNDELIVERED_OTHER`;
/// `consumptionPercentage` (milliunits, 0-100000) is 0 unless the status is `DELIVERED`.
public struct ConsumptionInformation: Encodable, Sendable, Equatable {
    /// Always true.
    public let customerConsented: Bool
    /// Whether the purchase reached the customer and works.
    public let deliveryStatus: String
    /// Whether the customer could try the content before buying.
    public let sampleContentProvided: Bool
    /// How much of the purchase the customer consumed, in milliunits, when known.
    public let consumptionPercentage: Int?

    /// The delivery statuses Apple accepts.
    public static let deliveryStatuses: Set<String> = [
        "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER",
    ]

    /// A body; nil when it would break Apple's rules (an unknown status, a percentage out of range or above
    /// 0 for content not delivered).
    public init?(deliveryStatus: String, sampleContentProvided: Bool, consumptionPercentage: Int?) {
        guard Self.deliveryStatuses.contains(deliveryStatus) else { return nil }
        if let consumptionPercentage {
            guard (0...100_000).contains(consumptionPercentage) else { return nil }
            guard deliveryStatus == "DELIVERED" || consumptionPercentage == 0 else { return nil }
        }
        customerConsented = true
        self.deliveryStatus = deliveryStatus
        self.sampleContentProvided = sampleContentProvided
        self.consumptionPercentage = consumptionPercentage
    }
}

extension AppStoreServerAPIClient {
    /// Send Consumption Information (`PUT /inApps/v2/transactions/consumption/{transactionId}`): answers a
    /// CONSUMPTION_REQUEST; Apple acknowledges with 202.
    public func sendConsumptionInformation(
        _ information: ConsumptionInformation, transactionId: String, environment: String
    )
        async throws(AppStoreAPIError)
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let body: Data
        do {
            body = try encoder.encode(information)
        } catch {
            throw AppStoreAPIError(.configuration("cannot encode the consumption information: \(error)"))
        }
        _ = try await send(
            .PUT, "/inApps/v2/transactions/consumption/\(try Self.pathSegment(transactionId))", environment: environment, body: body)
    }
}
