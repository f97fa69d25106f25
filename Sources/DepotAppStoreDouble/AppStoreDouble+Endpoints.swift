import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// The double's answers for endpoints with a body to check or pages to cut.
extension AppStoreDouble {
    /// Send Consumption Information: the body checked as Apple documents `ConsumptionRequest`.
    func consumption(_ body: ByteBuffer) -> Response {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else {
            return Self.appleError(.badRequest, 4_000_000, "Invalid request.")
        }
        guard object["customerConsented"] as? Bool == true else {
            return Self.appleError(.badRequest, 4_000_035, "Invalid request. The customer consented field is invalid.")
        }
        let statuses = [
            "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER",
        ]
        guard let status = object["deliveryStatus"] as? String, statuses.contains(status) else {
            return Self.appleError(.badRequest, 4_000_036, "Invalid request. The delivery status field is invalid.")
        }
        guard object["sampleContentProvided"] is Bool else {
            return Self.appleError(.badRequest, 4_000_041, "Invalid request. The sample content provided field is invalid.")
        }
        if let percentage = object["consumptionPercentage"] {
            guard let value = percentage as? Int, (0...100_000).contains(value), status == "DELIVERED" || value == 0 else {
                return Self.appleError(.badRequest, 4_000_000, "Invalid request. The consumption percentage is invalid.")
            }
        }
        return Response(status: .accepted)
    }

    /// Get Notification History: held notifications sent in [startDate, endDate), oldest first, a page at a
    /// time; the pagination token is the position of the next page.
    func history(query: String?, body: ByteBuffer) -> Response {
        struct Request: Decodable {
            var startDate: Int64?
            var endDate: Int64?
        }
        guard let request = try? JSONDecoder().decode(Request.self, from: Data(body.readableBytesView)) else {
            return Self.appleError(.badRequest, 4_000_000, "Invalid request.")
        }
        guard let start = request.startDate else { return Self.appleError(.badRequest, 4_000_015, "Invalid request start date.") }
        guard let end = request.endDate else { return Self.appleError(.badRequest, 4_000_016, "Invalid request end date.") }
        guard start < end else {
            return Self.appleError(
                .badRequest, 4_000_013, "Invalid request. The end date precedes the start date or the dates are the same.")
        }
        guard start >= (clock() - 180 * 86_400) * 1000 else {
            return Self.appleError(.badRequest, 4_000_012, "Invalid request. The start date is earlier than the allowed start date.")
        }
        var offset = 0
        if let query, !query.isEmpty {
            let token = query.split(separator: "&").first { $0.hasPrefix("paginationToken=") }?.dropFirst("paginationToken=".count)
            guard let token, let position = Int(token), position >= 0 else {
                return Self.appleError(.badRequest, 4_000_014, "Invalid request. The pagination token is invalid.")
            }
            offset = position
        }
        let matching = state.withLockedValue { state in
            state.notifications.filter { $0.sentAt >= start && $0.sentAt < end }.sorted { $0.sentAt < $1.sentAt }.map(\.payload)
        }
        let page = matching.dropFirst(offset).prefix(historyPageSize)
        let hasMore = offset + page.count < matching.count
        let items = page.map { #"{"signedPayload": \#(AppStoreDoubleSetup.quoted($0)), "sendAttempts": []}"# }
        var answer = #"{"notificationHistory": [\#(items.joined(separator: ", "))], "hasMore": \#(hasMore)"#
        if hasMore { answer += #", "paginationToken": "\#(offset + page.count)""# }
        return Self.json(.ok, answer + "}")
    }

}
