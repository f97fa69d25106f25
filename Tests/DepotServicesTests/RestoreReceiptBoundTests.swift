import DepotCore
import Testing

@testable import DepotServices

/// A restore by app receipt asks the App Store about each record it keeps: before it does, the records are cut to what
/// a restore can give back, and their number is charged to the client's restore budget.
@Suite("Bounding a restore by app receipt")
struct RestoreReceiptBoundTests {
    @Test func consumablesAndUnknownProductsAreLeftOutBeforeAnyLookup() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        let kept = fixture.restoring.restorable([
            DeliveryFlowFixture.purchase("1", of: DeliveryFlowFixture.levels),
            DeliveryFlowFixture.purchase("2", of: DeliveryFlowFixture.coins),
            DeliveryFlowFixture.purchase("3", of: "com.example.unsold"),
        ])
        #expect(kept.map(\.id) == ["1"])
    }

    @Test func aReceiptsRecordsAreChargedOneRestorePerHundred() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        let restoring = fixture.restoring
        // Fewer than a hundred records cost nothing beyond the restore itself.
        try restoring.charge(records: 99, client: "192.0.2.7")
        // The budget is the policy's restores per window: a receipt of that many hundred records spends it all.
        let budget = fixture.policy.restoresPerClient
        try restoring.charge(records: budget * 100, client: "192.0.2.7")
        #expect(throws: DeliveryError.self) { try restoring.charge(records: 100, client: "192.0.2.7") }
        // Another client's budget is its own.
        try restoring.charge(records: 100, client: "192.0.2.8")
    }
}
