import Foundation
import Testing

/// What `depot serve` processes of a test are pointed at: the scratch directory's `Config/`, `content/` and
/// `data/`, and the ledger (the data directory's SQLite file, or a PostgreSQL database).
struct ServePlace {
    let scratch: ScratchDirectory
    /// The PostgreSQL database, or nil for SQLite.
    let databaseURL: String?

    /// The state directory.
    var data: String { scratch.path + "/data" }
    /// `serve`'s options for this place.
    var arguments: [String] {
        ["--config", scratch.path + "/Config", "--data-dir", data, "--content-dir", scratch.path + "/content"]
    }
    /// The environment naming the PostgreSQL ledger, if any.
    var environment: [String: String] { databaseURL.map { ["DEPOT_DATABASE_URL": $0] } ?? [:] }
    /// The ledger's URL, for `LedgerReader`.
    var ledgerURL: String { databaseURL ?? "sqlite:" + data + "/ledger.sqlite" }

    /// Runs `body` with the depot binary and nil (SQLite) or a fresh PostgreSQL database's URL. A missing binary
    /// is a test failure; PostgreSQL without a server is skipped (a failure in CI).
    static func onEngine(
        _ engine: LedgerEngine, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (_ binary: String, _ databaseURL: String?) async throws -> Void
    ) async throws {
        // `debugBinary` counts from a file directly under Tests/DepotServerTests/; this one is a folder deeper.
        let binary = DepotProcess.debugBinary(filePath: (#filePath as NSString).deletingLastPathComponent)
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            Issue.record(
                "\(binary) is missing: run `swift build --build-tests` (it builds the depot binary this test starts and kills)",
                sourceLocation: sourceLocation)
            return
        }
        switch engine {
        case .sqlite: try await body(binary, nil)
        case .postgres: try await PostgresTestDatabase.with { database in try await body(binary, database.url) }
        }
    }
}
