import Foundation
import Testing

@testable import DepotLedger

/// The SQLite executor on its own (`SQLiteLedger.transaction`): a body that throws rolls back and its error comes
/// out as a `LedgerError`; a transaction that cannot begin (another writer holds the file past the busy timeout)
/// runs no statement and says so; a cancelled body rolls back and frees the writer; a body that hops to an actor
/// between statements keeps its one transaction.
@Suite struct SQLiteTransactionTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "the body refused" }
    }

    actor Counter {
        var value: Int64 = 0
        func next() -> Int64 {
            value += 1
            return value
        }
    }

    /// A fresh ledger file with a table `t (n INTEGER)`; removed afterwards.
    static func withLedger(
        _ name: String = #function, busyTimeout: TimeInterval = 120, _ body: (SQLiteLedger, String) async throws -> Void
    ) async throws {
        let directory = NSTemporaryDirectory() + "depot-sqlite-transaction-\(name.filter(\.isLetter))-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/ledger.sqlite"
        let ledger = try await SQLiteLedger.open(path: path, busyTimeout: busyTimeout)
        defer { try? ledger.close() }
        _ = try await ledger.transaction(.write, "making t") { session in try await session.execute("CREATE TABLE t (n INTEGER)") }
        try await body(ledger, path)
    }

    static func count(_ ledger: SQLiteLedger) async throws -> Int64 {
        try await ledger.transaction(.read, "counting t") { session in
            try await session.row("SELECT COUNT(*) FROM t")?.integer(0) ?? -1
        }
    }

    @Test func aThrowingBodyRollsBackAndItsErrorComesOutAsALedgerError() async throws {
        try await Self.withLedger { ledger, _ in
            do throws(LedgerError) {
                _ = try await ledger.transaction(.write, "inserting then refusing") { session -> Int in
                    _ = try await session.execute("INSERT INTO t (n) VALUES (\(Int64(1)))")
                    throw Refused()
                }
                Issue.record("the transaction did not throw")
            } catch {
                #expect(error.message.contains("inserting then refusing") && error.message.contains("the body refused"), "\(error)")
            }
            #expect(try await Self.count(ledger) == 0)
            // The writer is free: the next write commits.
            _ = try await ledger.transaction(.write, "inserting") { session in
                try await session.execute("INSERT INTO t (n) VALUES (\(Int64(2)))")
            }
            #expect(try await Self.count(ledger) == 1)
        }
    }

    @Test func aTransactionThatCannotBeginRunsNoStatementAndSaysSo() async throws {
        try await Self.withLedger(busyTimeout: 0.2) { ledger, path in
            // Another ledger on the file holds the writer until told to let go.
            let holder = try await SQLiteLedger.open(path: path)
            defer { try? holder.close() }
            let (held, holding) = AsyncStream<Void>.makeStream()
            let (release, releasing) = AsyncStream<Void>.makeStream()
            let holding_ = Task {
                try await holder.transaction(.write, "holding the writer") { session in
                    _ = try await session.execute("INSERT INTO t (n) VALUES (\(Int64(9)))")
                    holding.yield()
                    for await _ in release { break }
                }
            }
            for await _ in held { break }
            do throws(LedgerError) {
                // The body starts at once (the executor does not wait for BEGIN); its first statement fails.
                _ = try await ledger.transaction(.write, "writing while another writer holds the file") { session in
                    try await session.execute("INSERT INTO t (n) VALUES (\(Int64(1)))")
                }
                Issue.record("the transaction began although another writer held the file")
            } catch {
                #expect(error.code == .busy && error.isUnavailable, "\(error)")
                #expect(error.engineCode?.contains("SQLITE_BUSY") == true, "\(String(describing: error.engineCode))")
                #expect(error.message.contains("writing while another writer holds the file"), "\(error)")
            }
            releasing.yield()
            try await holding_.value
            #expect(try await Self.count(ledger) == 1)
        }
    }

    @Test func aCancelledBodyRollsBackAndFreesTheWriter() async throws {
        try await Self.withLedger { ledger, _ in
            let (started, starting) = AsyncStream<Void>.makeStream()
            let task = Task {
                try await ledger.transaction(.write, "inserting then waiting") { session in
                    _ = try await session.execute("INSERT INTO t (n) VALUES (\(Int64(1)))")
                    starting.yield()
                    try await Task.sleep(for: .seconds(3600))
                }
            }
            for await _ in started { break }
            task.cancel()
            await #expect(throws: LedgerError.self) { try await task.value }
            #expect(try await Self.count(ledger) == 0)
            _ = try await ledger.transaction(.write, "inserting after") { session in
                try await session.execute("INSERT INTO t (n) VALUES (\(Int64(2)))")
            }
            #expect(try await Self.count(ledger) == 1)
        }
    }

    @Test func aBodyThatHopsToAnActorKeepsItsOneTransaction() async throws {
        try await Self.withLedger { ledger, _ in
            let counter = Counter()
            let seen = try await ledger.transaction(.write, "inserting around an actor") { session -> Int64 in
                _ = try await session.execute("INSERT INTO t (n) VALUES (\(await counter.next()))")
                // Off the transaction's thread and back: the statement is sent to it, inside the same transaction.
                let second = await counter.next()
                _ = try await session.execute("INSERT INTO t (n) VALUES (\(second))")
                return try await session.row("SELECT COUNT(*) FROM t")?.integer(0) ?? -1
            }
            #expect(seen == 2)
            #expect(try await Self.count(ledger) == 2)
            // A read sees one snapshot whatever the body awaits.
            let sum = try await ledger.transaction(.read, "summing") { session -> Int64 in
                _ = await counter.next()
                return try await session.row("SELECT SUM(n) FROM t")?.integer(0) ?? -1
            }
            #expect(sum == 3)
        }
    }
}
