import DepotTestSupport
import Testing

/// A live server selling the standard packs and `com.example.coins`, with a `googlePlay` section, on either ledger.
enum GooglePlayLiveServer {
    /// Runs `body` with the server `settings` configure, on `engine` (a database of its own on PostgreSQL).
    static func with(
        _ engine: LedgerEngine, settings: String, name: String = #function, _ body: (LiveServer) async throws -> Void
    ) async throws {
        var packs = LiveServer.standardPacks
        packs.append(
            LiveServer.PackSpec(
                directory: "shop/coins", productId: "com.example.coins", files: ["coins.json": Array("{\"coins\": 500}".utf8)]))
        switch engine {
        case .sqlite:
            try await LiveServer.with(name, packs: packs, settings: settings, body: body)
        case .postgres:
            try await PostgresTestDatabase.with(name) { database in
                try await LiveServer.with(
                    name, packs: packs, settings: settings + ", \"ledger\": {\"url\": \"\(database.url)\"}", body: body)
            }
        }
    }
}
