import DepotCore
import DepotTestSupport
import Foundation
import Synchronization
import Testing

@testable import DepotLedger

/// How a SQLite transaction's operation runs: on the thread of the GRDB access serving it, statement after statement
/// without leaving it; work it leaves behind still runs after it, without the connection; and many operations at once
/// each get their access and end.
@Suite struct SQLiteAccessTests {
    /// The thread running the caller.
    static var thread: pthread_t { pthread_self() }

    @Test func anOperationRunsWhereItsStatementsRunFromItsFirstToItsLast() async throws {
        try await LedgerFixture.with(.sqlite) { _, ledger in
            let sqlite = try #require(ledger as? SQLiteLedger)
            for kind in [SQLTransactionKind.write, .read, .snapshot] {
                let threads = try await sqlite.transaction(kind, "threads") { session in
                    var threads: [pthread_t] = [Self.thread]
                    for _ in 0..<5 {
                        _ = try await session.rows("SELECT 1")
                        threads.append(Self.thread)
                        await Task.yield()
                        threads.append(Self.thread)
                    }
                    return threads
                }
                #expect(Set(threads).count == 1, "\(kind): \(threads)")
            }
        }
    }

    @Test func workAnOperationLeavesBehindRunsAfterItWithoutTheConnection() async throws {
        try await LedgerFixture.with(.sqlite) { _, ledger in
            let sqlite = try #require(ledger as? SQLiteLedger)
            let leftBehind = try await sqlite.transaction(.write, "leaving work behind") { session in
                let session = try #require(session as? SQLiteSession)
                // Started inside, awaited outside: it runs once the operation ended, and its statement is refused.
                return Task { () async throws -> Int in
                    try await Task.sleep(for: .milliseconds(50))
                    return try await session.execute("CREATE TABLE never (id INTEGER)")
                }
            }
            await #expect(throws: LedgerError.self) { try await leftBehind.value }
            let tables = try await sqlite.transaction(.read, "tables") { session in
                try await session.rows("SELECT name FROM sqlite_master WHERE name = 'never'")
            }
            #expect(tables.isEmpty)
        }
    }

    @Test func manyOperationsAtOnceEachGetTheirAccessAndEnd() async throws {
        try await LedgerFixture.with(.sqlite) { _, ledger in
            let ids = (0..<64).map { String(7000 + $0) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, id) in ids.enumerated() {
                    group.addTask {
                        _ = try await ledger.recordTransaction(Sample.transaction(id), now: Int64(index))
                        // A read of another operation's row, in between other operations' writes.
                        _ = try await ledger.transaction(id: ids[(index + 1) % ids.count])
                    }
                }
                try await group.waitForAll()
            }
            for id in ids { #expect(try await ledger.transaction(id: id) != nil) }
        }
    }
}
