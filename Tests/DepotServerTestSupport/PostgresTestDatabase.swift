import DepotLedger
import DepotTestSupport
import Foundation
import Testing

/// The ledger engine a live test runs Depot on.
enum LedgerEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The embedded default: one SQLite file under the data directory.
    case sqlite
    /// A PostgreSQL database (several instances sharing the work).
    case postgres

    var testDescription: String { rawValue }

    /// The engines this run tests: those `DEPOT_TEST_ENGINES` names (`sqlite`, `postgres`, comma-separated), every
    /// one when it is unset.
    static let tested: [LedgerEngine] = EngineSelection.tested(from: ProcessInfo.processInfo.environment)
}

/// A fresh, empty `depot_test_<name>_<random>` database on the server `DEPOT_TEST_POSTGRES_URL` names,
/// dropped (with its sessions, `WITH (FORCE)`) when the test ends.
///
/// Without the variable, a test is skipped with a hint, or fails under CI (`CI` set), where the server is
/// required: the same rule as the ledger's own suite (`Tests/DepotLedgerTests/Support/LedgerEngine.swift`).
struct PostgresTestDatabase: Sendable {
    /// Where the server for PostgreSQL tests is.
    static let variable = "DEPOT_TEST_POSTGRES_URL"

    /// The server, as the variable names it.
    let server: PostgresURL
    /// The database made for the test.
    let name: String
    /// The database's URL as a Depot configuration takes it (`DEPOT_DATABASE_URL`, `ledger.url`).
    let url: String

    /// Runs `body` with a fresh database, or returns without running it when no server is configured.
    static func with(
        _ test: String = #function, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (PostgresTestDatabase) async throws -> Void
    ) async throws {
        guard let database = try await make(test, sourceLocation: sourceLocation) else { return }
        do {
            try await body(database)
        } catch {
            await database.drop()
            throw error
        }
        await database.drop()
    }

    private static func make(_ test: String, sourceLocation: SourceLocation) async throws -> PostgresTestDatabase? {
        // A run that left PostgreSQL out (DEPOT_TEST_ENGINES=sqlite) skips what needs it without a word.
        guard LedgerEngine.tested.contains(.postgres) else { return nil }
        let environment = ProcessInfo.processInfo.environment
        guard let text = environment[variable], !text.isEmpty else {
            let hint = "run `bash .ci/postgres.sh` and export the DEPOT_TEST_POSTGRES_URL it prints on its last line"
            if environment["CI"] != nil {
                Issue.record("PostgreSQL required in CI: \(variable) is not set; \(hint)", sourceLocation: sourceLocation)
            } else {
                print("skipping \(test) on PostgreSQL: \(variable) is not set; \(hint)")
            }
            return nil
        }
        let server = try PostgresURL(text)
        let base = test.prefix { $0 != "(" }.filter { $0.isLetter || $0.isNumber }.lowercased().prefix(30)
        let name = "depot_test_\(base)_\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        guard var components = URLComponents(string: text) else {
            throw PostgresTestDatabaseError(description: "\(variable) is not a URL")
        }
        components.path = "/" + name
        guard let url = components.string else {
            throw PostgresTestDatabaseError(description: "\(variable) cannot take another database name")
        }
        try await PostgresLedger.createDatabase(name, serverURL: server, logger: PostgresLedger.quietLogger)
        return PostgresTestDatabase(server: server, name: name, url: url)
    }

    /// Opens the database as another instance would (a client of its own); `shutdown()` it when done.
    func connect() async throws -> PostgresLedger {
        try await PostgresLedger.connect(url: server.with(database: name), logger: PostgresLedger.quietLogger)
    }

    private func drop() async {
        do {
            try await PostgresLedger.dropDatabase(name, serverURL: server, logger: PostgresLedger.quietLogger)
        } catch {
            Issue.record("could not drop the test database \(name): \(error)")
        }
    }
}

struct PostgresTestDatabaseError: Error, CustomStringConvertible {
    var description: String
}
