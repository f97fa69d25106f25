import DepotCore
import Logging
import ServiceLifecycle
import Testing

@testable import DepotLedger

/// The PostgreSQL client's run loop as a service: the ledger works while a service group runs it, and the
/// group's graceful shutdown ends it with its connections closed (the fixture then drops the database, which
/// PostgreSQL refuses while a connection to it is open).
@Suite struct PostgresClientServiceTests {
    @Test func aLedgerWorksWhileItsGroupRunsAndTheGroupEndsItsConnections() async throws {
        try await LedgerFixture.withFixture(.postgres) { fixture in
            let url = try #require(fixture.postgresURL)
            let (ledger, client) = try await PostgresLedger.forServiceGroup(url: url, logger: PostgresLedger.quietLogger)
            let group = ServiceGroup(services: [client], logger: PostgresLedger.quietLogger)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                _ = try await ledger.recordTransaction(Sample.transaction("7001"), now: 10)
                #expect(try await ledger.transaction(id: "7001")?.transaction.id == "7001")
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    @Test func anUnreachableServerFailsAtOnceBeforeAnyGroupRuns() async throws {
        let url = try PostgresURL("postgres://depot@127.0.0.1:1/depot")
        await #expect(throws: LedgerError.self) {
            _ = try await PostgresLedger.forServiceGroup(url: url, logger: PostgresLedger.quietLogger)
        }
    }
}
