@testable import DepotServerTestSupport
import DepotSettings
import DepotAppStoreDouble
import DepotCore
import DepotLedger
import DepotServer
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// `depot transactions refresh ID`: Get Transaction Info from the App Store double, verified with the
/// development root, applied to the ledger a running server shares; both engines.
@Suite("depot transactions refresh")
struct TransactionRefreshTests {
    @Test(arguments: LedgerEngine.tested)
    func aRevocationLearntByRefreshStopsTheGrants(engine: LedgerEngine) async throws {
        try await AppStoreDoubleFixture.with { appStore in
            try await SharedInstances.with(engine: engine, count: 1, settings: appStore.settings()) { shared in
                let server = shared.servers[0]
                let data = server.application.configuration.dataDirectory
                let (id, _, urls) = try await PurchaseLoop.buy(port: server.port, dataDirectory: data)
                let url = try #require(urls.first)
                let command = DepotCommand(scratch: shared.scratch, databaseURL: engine == .postgres ? shared.ledgerURL : nil)

                // The App Store still has it unrevoked: nothing changes.
                let current = try PurchaseRequests.sign(
                    dataDirectory: data, bundleId: AppStoreDoubleFixture.bundleId, product: "com.example.level1", type: "Non-Consumable"
                ) { $0.transactionId = id }
                appStore.double.holdTransaction(id, signedTransactionInfo: current.jws)
                #expect(try await command.lastLine(["transactions", "refresh", id]) == "\(id) (Sandbox): not revoked")

                // Refunded at the App Store: the refresh records the revocation and the server refuses the grant.
                let revokedAt = Int64(Date().timeIntervalSince1970 * 1000)
                let refunded = try PurchaseRequests.sign(
                    dataDirectory: data, bundleId: AppStoreDoubleFixture.bundleId, product: "com.example.level1", type: "Non-Consumable"
                ) {
                    $0.transactionId = id
                    $0.revocationDate = revokedAt
                    $0.signedDate = revokedAt + 1000
                }
                appStore.double.holdTransaction(id, signedTransactionInfo: refunded.jws)
                let line = try await command.lastLine(["transactions", "refresh", id])
                #expect(line.hasPrefix("\(id) (Sandbox): revoked at "), "\(line)")
                let stored = try await server.application.ledger.transaction(id: id)
                #expect(stored?.transaction.revocationDate == revokedAt)
                #expect(try await server.application.ledger.auditTrail(transactionId: id).contains { $0.event == "revoked" })
                let client = try RawHTTPClient(port: server.port)
                try await eventually("the grant refused") { try await client.request(RawHTTPClient.get(url)).status == 403 }
                #expect(
                    appStore.double.requests.filter { $0.method == "GET" }.map(\.path)
                        == Array(repeating: "/inApps/v1/transactions/\(id)", count: 2))

                // An answer that does not verify, or an unknown transaction, changes nothing and says why.
                appStore.double.holdTransaction(id, signedTransactionInfo: "eyJ.eyJ.sig")
                let bad = try await ExternalTool.run(command.binary, ["transactions", "refresh", id] + command.place)
                #expect(bad.status != 0 && bad.error.contains("does not verify"), "\(bad.error)")
                let unknown = try await ExternalTool.run(
                    command.binary, ["transactions", "refresh", "99", "--environment", "Sandbox"] + command.place)
                #expect(unknown.status != 0 && unknown.error.contains("4040010"), "\(unknown.error)")
                #expect(try await server.application.ledger.transaction(id: id)?.transaction.revocationDate == revokedAt)
            }
        }
    }

    /// A revocation the refresh records reaches the edges as a REFUND notification's does: the running server
    /// finds it in the ledger, refuses the grants and purges the purchase's grant-check tag.
    @Test func aRevocationLearntByRefreshPurgesTheGrantChecks() async throws {
        let hookDirectory = try ScratchDirectory(#function)
        defer { hookDirectory.remove() }
        let script = try PurgeScript(in: hookDirectory)
        try await AppStoreDoubleFixture.with { appStore in
            let settings = appStore.settings() + ", \"edge\": {\"purge\": {\"command\": [\"\(script.path)\"], \"backoffMilliseconds\": 20}}"
            try await SharedInstances.with(engine: .sqlite, count: 1, settings: settings) { shared in
                let server = shared.servers[0]
                let data = server.application.configuration.dataDirectory
                let (id, _, urls) = try await PurchaseLoop.buy(port: server.port, dataDirectory: data)
                let url = try #require(urls.first)
                let client = try RawHTTPClient(port: server.port)
                let check = try await client.request(RawHTTPClient.get("/v1/grants/check", ["X-Original-URI: \(url)"]))
                #expect(check.status == 204)
                let tag = try #require(check.value("Surrogate-Key"))
                #expect(tag.hasPrefix("transaction:"))

                let revokedAt = Int64(Date().timeIntervalSince1970 * 1000)
                let refunded = try PurchaseRequests.sign(
                    dataDirectory: data, bundleId: AppStoreDoubleFixture.bundleId, product: "com.example.level1", type: "Non-Consumable"
                ) {
                    $0.transactionId = id
                    $0.revocationDate = revokedAt
                    $0.signedDate = revokedAt + 1000
                }
                appStore.double.holdTransaction(id, signedTransactionInfo: refunded.jws)
                let command = DepotCommand(scratch: shared.scratch, databaseURL: nil)
                let line = try await command.lastLine(["transactions", "refresh", id])
                #expect(line.hasPrefix("\(id) (Sandbox): revoked at "), "\(line)")

                try await eventually("the revocation's purge") { try script.runs().contains { $0.purge.tags == [tag] } }
                let purge = try #require(try script.runs().first { $0.purge.tags == [tag] }?.purge)
                #expect(purge.reason == "revoked \(tag)")
                #expect(purge.paths.isEmpty)
                let refused = try await client.request(RawHTTPClient.get("/v1/grants/check", ["X-Original-URI: \(url)"]))
                #expect(refused.status == 403)
            }
        }
    }
}
