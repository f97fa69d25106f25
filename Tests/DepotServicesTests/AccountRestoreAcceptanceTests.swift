import DepotCore
import DepotLedger
import DepotServices
import Testing

/// A restore by account delivers from the ledger alone: a purchase this server would no longer accept if presented
/// (its environment's trust withdrawn) is left out, and one it accepts is answered with its downloads.
@Suite("Restore by account and the trust in force now")
struct AccountRestoreAcceptanceTests {
    static let account = "5c1c3d6e-8a8f-4a43-9f5e-0d1b9a7e2c11"

    @Test func aPurchaseWhoseEnvironmentIsNoLongerAcceptedIsLeftOut() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        var purchase = DeliveryFlowFixture.purchase("8001", of: DeliveryFlowFixture.levels)
        purchase.transaction.appAccountToken = Self.account
        purchase.transaction.environment = "Sandbox"
        _ = try await fixture.redeem(purchase)
        let account = try AccountToken(Self.account)

        let accepted = try await fixture.restoring.restore(account: account, client: "192.0.2.2") { _ in true }
        #expect(accepted.entries.map(\.transaction.transaction.id) == ["8001"])
        #expect(accepted.downloads.count == 1)

        let withdrawn = try await fixture.restoring.restore(account: account, client: "192.0.2.2") {
            $0.environment != "Sandbox"
        }
        #expect(withdrawn.entries.isEmpty)
        #expect(withdrawn.downloads.isEmpty)
    }
}
