import Foundation
import NIOHTTP1

/// One page of Get Notification History.
public struct NotificationHistoryPage: Sendable, Equatable {
    /// The notifications' `signedPayload`s, as they were (or would have been) posted to the server.
    public var signedPayloads: [String]
    /// Whether more pages follow.
    public var hasMore: Bool
    /// The token that asks for the next page, when `hasMore`.
    public var paginationToken: String?
}

extension AppStoreServerAPIClient {
    /// Get Notification History (`POST /inApps/v1/notifications/history`, API 1.5): the App Store Server
    /// Notifications V2 sent (or attempted) between `startDate` and `endDate` (milliseconds since 1970), a page
    /// of at most 20 at a time; `paginationToken` (from the previous page) asks for the next one.
    public func notificationHistory(
        startDate: Int64, endDate: Int64, paginationToken: String? = nil, environment: String
    ) async throws(AppStoreAPIError) -> NotificationHistoryPage {
        var path = "/inApps/v1/notifications/history"
        if let paginationToken {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            guard let escaped = paginationToken.addingPercentEncoding(withAllowedCharacters: allowed) else {
                throw AppStoreAPIError(.configuration("an unusable pagination token"))
            }
            path += "?paginationToken=" + escaped
        }
        struct Request: Encodable {
            var startDate: Int64
            var endDate: Int64
        }
        struct Item: Decodable { var signedPayload: String }
        struct Answer: Decodable {
            var notificationHistory: [Item]?
            var hasMore: Bool?
            var paginationToken: String?
        }
        let body: Data
        do {
            body = try JSONEncoder().encode(Request(startDate: startDate, endDate: endDate))
        } catch {
            throw AppStoreAPIError(.configuration("cannot encode the history request: \(error)"))
        }
        let data = try await send(.POST, path, environment: environment, body: body)
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data) else {
            throw AppStoreAPIError(.apple(status: 200, errorCode: nil, errorMessage: "an unreadable notification history"))
        }
        let hasMore = answer.hasMore ?? false
        guard !hasMore || answer.paginationToken?.isEmpty == false else {
            throw AppStoreAPIError(.apple(status: 200, errorCode: nil, errorMessage: "hasMore without a paginationToken"))
        }
        return NotificationHistoryPage(
            signedPayloads: (answer.notificationHistory ?? []).map(\.signedPayload), hasMore: hasMore,
            paginationToken: hasMore ? answer.paginationToken : nil)
    }
}
