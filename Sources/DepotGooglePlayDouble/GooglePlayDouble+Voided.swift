import Foundation
import DepotTrust
import Hummingbird
import NIOConcurrencyHelpers

/// `GET .../purchases/voidedpurchases?startTime=&endTime=&maxResults=&token=&type=&includeQuantityBasedPartialRefund=`:
/// the voided purchases held
/// (`holdVoided`) voided within [startTime, endTime] (milliseconds; by default the last 30 days), oldest first,
/// `maxResults` (1-1000, default 1000) to a page, with `tokenPagination.nextPageToken` when more follow; `type`
/// 0 (the default) lists one-time products only, 1 subscriptions too; quantity-based partial refunds (`refundType` 2,
/// with `voidedQuantity`) only with `includeQuantityBasedPartialRefund=true`. Google's 400 `invalid` answers a start
/// more than 30 days ago or after the end, an end more than a minute ahead, a bad page token or `maxResults`.
extension GooglePlayDouble {
    /// How far back a listing may reach, in milliseconds.
    static let voidedWindow: Int64 = 30 * 86_400_000

    /// The page of voided purchases `query` asks for.
    func voidedPurchases(query: String?) -> Response {
        guard let fields = GooglePlayDoubleForm.fields(query ?? "") else { return Self.invalidArgument("The query string is malformed.") }
        let now = clock()
        var numbers: [String: Int64] = [:]
        for name in ["startTime", "endTime", "maxResults", "type"] {
            guard let text = fields[name] else { continue }
            guard let value = Int64(text) else { return Self.invalidArgument("Invalid value for \(name): \(text)") }
            numbers[name] = value
        }
        let start = numbers["startTime"] ?? now - Self.voidedWindow
        let end = numbers["endTime"] ?? now
        let maxResults = numbers["maxResults"] ?? 1000
        let type = numbers["type"] ?? 0
        guard start >= now - Self.voidedWindow else {
            return Self.invalidArgument("startTime must be within the last 30 days.")
        }
        guard end <= now else { return Self.invalidArgument("endTime cannot be in the future.") }
        guard start <= end else { return Self.invalidArgument("startTime must be before endTime.") }
        guard (1...1000).contains(maxResults) else { return Self.invalidArgument("maxResults must be from 1 to 1000.") }
        guard type == 0 || type == 1 else { return Self.invalidArgument("type must be 0 or 1.") }
        let partial: Bool
        switch fields["includeQuantityBasedPartialRefund"] {
        case nil, "false": partial = false
        case "true": partial = true
        case let other?: return Self.invalidArgument("Invalid value for includeQuantityBasedPartialRefund: \(other)")
        }
        var offset = 0
        if let token = fields["token"] {
            guard let bytes = Base64URL.decode(token), let text = String(bytes: bytes, encoding: .utf8), let position = Int(text),
                position >= 0
            else { return Self.invalidArgument("The pagination token is invalid.") }
            offset = position
        }
        let matching = state.withLockedValue { state in
            state.voided.enumerated()
                .filter { $0.element.voidedTimeMillis >= start && $0.element.voidedTimeMillis <= end }
                .filter { type == 1 || $0.element.kind == .product }
                .filter { partial || $0.element.refundType != 2 }
                .sorted { ($0.element.voidedTimeMillis, $0.offset) < ($1.element.voidedTimeMillis, $1.offset) }
                .map(\.element)
        }
        let page = matching.dropFirst(offset).prefix(Int(maxResults))
        let next = offset + page.count
        let items = page.map(Self.voidedPurchase)
        return Self.json(
            .ok,
            Self.object([
                (
                    "tokenPagination",
                    next < matching.count ? #"{"nextPageToken": "\#(Base64URL.encode(Array(String(next).utf8)))"}"# : nil
                ),
                ("voidedPurchases", items.isEmpty ? nil : "[" + items.joined(separator: ", ") + "]"),
            ]))
    }

    /// A `VoidedPurchase` resource.
    static func voidedPurchase(_ voided: GooglePlayDoubleVoidedPurchase) -> String {
        object([
            ("kind", #""androidpublisher#voidedPurchase""#),
            ("purchaseToken", GooglePlayDoubleSetup.quoted(voided.purchaseToken)),
            ("purchaseTimeMillis", GooglePlayDoubleSetup.quoted(String(voided.purchaseTimeMillis))),
            ("voidedTimeMillis", GooglePlayDoubleSetup.quoted(String(voided.voidedTimeMillis))),
            ("orderId", GooglePlayDoubleSetup.quoted(voided.orderId)),
            ("voidedSource", String(voided.voidedSource)),
            ("voidedReason", String(voided.voidedReason)),
            ("refundType", String(voided.refundType)),
            ("voidedQuantity", voided.voidedQuantity.map { String($0) }),
        ])
    }

    private static func invalidArgument(_ message: String) -> Response {
        googleError(.badRequest, message, status: "INVALID_ARGUMENT", reason: "invalid")
    }
}
