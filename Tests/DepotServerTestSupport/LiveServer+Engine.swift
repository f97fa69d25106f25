import DepotTestSupport
import Testing

extension LiveServer {
    /// Runs `body` with a live server as ``with(_:packs:idleTimeoutSeconds:requestTimeoutSeconds:settings:serverSettings:tls:configure:body:)``
    /// starts it, on `engine`'s ledger: its SQLite file, or a PostgreSQL database of the test's own.
    static func with(
        engine: LedgerEngine, _ name: String = #function, packs: [PackSpec] = standardPacks, settings: String = "",
        configure: (ScratchDirectory) throws -> Void = { _ in }, body: (LiveServer) async throws -> Void
    ) async throws {
        switch engine {
        case .sqlite:
            try await with(name, packs: packs, settings: settings, configure: configure, body: body)
        case .postgres:
            try await PostgresTestDatabase.with(name) { database in
                let ledger = "\"ledger\": {\"url\": \"\(database.url)\"}"
                try await with(
                    name, packs: packs, settings: settings.isEmpty ? ledger : settings + ", " + ledger, configure: configure,
                    body: body)
            }
        }
    }
}
