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
        try await LiveServer.with(engine: engine, name, packs: packs, settings: settings, body: body)
    }
}
