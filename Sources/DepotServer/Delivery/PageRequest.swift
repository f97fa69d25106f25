import DepotAPI
import DepotCore
import DepotTrust
import Foundation
import Hummingbird

/// A page of an operator list: `?limit=N` (1-1000, 100 by default) and `?cursor=C`, the `nextCursor` of the
/// page before. Cursors are opaque to callers: base64url of the position the next page starts after. A cursor
/// that does not decode to a position the list could have handed out is 400 `invalid-cursor`.
struct PageRequest<Position: Codable>: Sendable where Position: Sendable {
    /// The largest page a caller may ask for.
    static var maxLimit: Int { 1000 }

    var limit: Int
    var after: Position?

    /// Reads `limit` and `cursor`; `accepts` says whether a decoded position is one the list hands out (a list
    /// paged by offset never hands out a negative one, which PostgreSQL would refuse as an OFFSET).
    init(_ request: Request, accepts: (Position) -> Bool = { _ in true }) throws(DepotError) {
        let query = request.uri.queryParameters
        if let text = query.get("limit") {
            guard let limit = Int(text), (1...Self.maxLimit).contains(limit) else {
                throw DepotError.badRequest("limit must be a number from 1 to \(Self.maxLimit)")
            }
            self.limit = limit
        } else {
            limit = 100
        }
        guard let cursor = query.get("cursor") else { return }
        guard let position = Self.decode(cursor), accepts(position) else {
            throw DepotError(.invalidCursor, "cursor is not one this server handed out")
        }
        after = position
    }

    /// The cursor that continues after `position`.
    static func cursor(after position: Position) -> String {
        Base64URL.encode(Array((try? JSONEncoder().encode(position)) ?? Data()))
    }

    private static func decode(_ cursor: String) -> Position? {
        guard cursor.utf8.count <= 4096 else { return nil }
        guard let bytes = Base64URL.decode(cursor) else { return nil }
        return try? JSONDecoder().decode(Position.self, from: Data(bytes))
    }

    /// Splits `fetched` (asked for with `limit + 1`) into this page and the cursor of the next, if any.
    func page<Item>(_ fetched: [Item], position: (Item) -> Position) -> (items: [Item], nextCursor: String?) {
        guard fetched.count > limit, let last = fetched.prefix(limit).last else { return (fetched, nil) }
        return (Array(fetched.prefix(limit)), Self.cursor(after: position(last)))
    }
}
