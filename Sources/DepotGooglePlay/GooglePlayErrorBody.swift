import Foundation

/// Google's JSON error body, `{"error": {"code", "message", "status", "errors": [{"reason", ...}]}}`: the first
/// reason (or the status) and the message, when the body has them.
enum GooglePlayErrorBody {
    static func decode(_ data: Data) -> (reason: String?, message: String?) {
        struct Body: Decodable {
            struct Inner: Decodable {
                struct Item: Decodable { var reason: String? }
                var message: String?
                var status: String?
                var errors: [Item]?
            }
            var error: Inner?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: data), let inner = body.error else { return (nil, nil) }
        return (inner.errors?.first?.reason ?? inner.status, inner.message)
    }
}
