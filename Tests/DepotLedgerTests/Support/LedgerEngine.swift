import DepotCore
import DepotTestSupport
import Foundation
import Synchronization
import Testing

@testable import DepotLedger

/// The engines the conformance suite runs against.
enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The engines this run tests: those `DEPOT_TEST_ENGINES` names (`sqlite`, `postgres`, comma-separated), every
    /// one when it is unset. The fast tier runs SQLite alone; the integration tier runs the PostgreSQL half.
    static let tested: [Engine] = EngineSelection.tested(from: ProcessInfo.processInfo.environment)
}

/// A fresh, empty ledger database for one test, removed afterwards: a temporary SQLite file named after
/// the test, or a `depot_test_<random>` database on the server `DEPOT_TEST_POSTGRES_URL` names.
///
/// Every ledger opened through `open()` is closed when the test ends, before the database is removed.
final class LedgerFixture: Sendable {
    /// Where the server for PostgreSQL tests is.
    static let postgresURLVariable = "DEPOT_TEST_POSTGRES_URL"

    let engine: Engine
    private let place: Place
    private let opened = Mutex<[OpenedLedger]>([])

    private enum Place {
        case sqlite(directory: String, path: String)
        case postgres(server: PostgresURL, database: String)
    }

    private enum OpenedLedger {
        case sqlite(SQLiteLedger)
        case postgres(PostgresLedger)
    }

    private init(engine: Engine, place: Place) {
        self.engine = engine
        self.place = place
    }

    /// Runs `body` with a fresh fixture and one open ledger on it. PostgreSQL tests without a server are
    /// skipped with a hint (or fail under CI, where the server is required).
    static func with(
        _ engine: Engine, test: String = #function,
        _ body: (LedgerFixture, any Ledger) async throws -> Void
    ) async throws {
        try await withFixture(engine, test: test) { fixture in
            try await body(fixture, try await fixture.open())
        }
    }

    /// Runs `body` with a fresh fixture on which no ledger was opened yet (the schema does not exist).
    static func withFixture(
        _ engine: Engine, test: String = #function, _ body: (LedgerFixture) async throws -> Void
    ) async throws {
        guard let fixture = try await make(engine, test: test) else { return }
        do {
            try await body(fixture)
        } catch {
            await fixture.tearDown()
            throw error
        }
        await fixture.tearDown()
    }

    /// Printed once per run, not once per test.
    private static let skipNotice: Void = {
        print(
            "skipping the PostgreSQL ledger tests: \(postgresURLVariable) is not set; run `bash .ci/postgres.sh` "
                + "and export the DEPOT_TEST_POSTGRES_URL it prints on its last line")
    }()

    private static func make(_ engine: Engine, test: String) async throws -> LedgerFixture? {
        let name = test.prefix { $0 != "(" }.filter { $0.isLetter || $0.isNumber }
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        switch engine {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("DepotLedgerTests-\(name)-\(suffix)").path
            return LedgerFixture(
                engine: engine, place: .sqlite(directory: directory, path: directory + "/ledger.sqlite"))
        case .postgres:
            // A run that left PostgreSQL out (the fast tier) skips what needs it without a word.
            guard Engine.tested.contains(.postgres) else { return nil }
            let environment = ProcessInfo.processInfo.environment
            guard let urlText = environment[postgresURLVariable], !urlText.isEmpty else {
                if environment["CI"] != nil {
                    let message =
                        "PostgreSQL required in CI: \(postgresURLVariable) is not set; run `bash .ci/postgres.sh` "
                        + "and export the DEPOT_TEST_POSTGRES_URL it prints on its last line"
                    Issue.record("\(message)")
                    return nil
                }
                _ = skipNotice
                return nil
            }
            let server = try PostgresURL(urlText)
            let database = "depot_test_\(name.lowercased().prefix(30))_\(suffix)"
            try await PostgresLedger.createDatabase(database, serverURL: server, logger: PostgresLedger.quietLogger)
            return LedgerFixture(engine: engine, place: .postgres(server: server, database: database))
        }
    }

    /// Opens another ledger (a new pool / client, as another process or instance would) on the fixture's
    /// database, running the migrations.
    func open() async throws -> any Ledger {
        switch place {
        case .sqlite(_, let path):
            // Instances racing on one file wait for each other's write lock; on a loaded machine a holder can be
            // descheduled for longer than a server's default wait, which is what these tests do not measure.
            let ledger = try await SQLiteLedger.open(path: path, busyTimeout: 120)
            opened.withLock { $0.append(.sqlite(ledger)) }
            return ledger
        case .postgres(let server, let database):
            let ledger = try await PostgresLedger.connect(
                url: server.with(database: database), logger: PostgresLedger.quietLogger)
            opened.withLock { $0.append(.postgres(ledger)) }
            return ledger
        }
    }

    /// The URL of the fixture's PostgreSQL database; nil for SQLite.
    var postgresURL: PostgresURL? {
        guard case .postgres(let server, let database) = place else { return nil }
        return server.with(database: database)
    }

    /// Closes one ledger opened by `open()` (the SQLite pool closes its file; the Postgres client stops).
    func close(_ ledger: any Ledger) async throws {
        if let ledger = ledger as? SQLiteLedger {
            try ledger.close()
        } else if let ledger = ledger as? PostgresLedger {
            await ledger.shutdown()
        }
    }

    /// The schema versions recorded in the fixture's database, read through `ledger`.
    func appliedMigrations(_ ledger: any Ledger) async throws -> [String] {
        if let ledger = ledger as? SQLiteLedger { return try await ledger.appliedMigrations() }
        if let ledger = ledger as? PostgresLedger { return try await ledger.appliedMigrations() }
        Issue.record("unknown engine")
        return []
    }

    private func tearDown() async {
        let ledgers = opened.withLock { ledgers in
            defer { ledgers.removeAll() }
            return ledgers
        }
        for ledger in ledgers {
            switch ledger {
            case .sqlite(let ledger): try? ledger.close()
            case .postgres(let ledger): await ledger.shutdown()
            }
        }
        switch place {
        case .sqlite(let directory, _):
            try? FileManager.default.removeItem(atPath: directory)
        case .postgres(let server, let database):
            do {
                try await PostgresLedger.dropDatabase(database, serverURL: server, logger: PostgresLedger.quietLogger)
            } catch {
                Issue.record("could not drop the test database \(database): \(error)")
            }
        }
    }
}
