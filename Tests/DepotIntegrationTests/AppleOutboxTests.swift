@testable import DepotServerTestSupport
import DepotSettings
import DepotAppStoreDouble
import DepotCore
import DepotLedger
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Server-side Finish Transaction through the outbox, against the App Store double, on both ledger engines.
@Suite("App Store outbox on live servers")
struct AppleOutboxTests {
    @Test(arguments: LedgerEngine.tested)
    func aConfirmedDeliveryIsFinishedAtTheAppStoreExactlyOnce(engine: LedgerEngine) async throws {
        try await AppStoreDoubleFixture.with { appStore in
            try await SharedInstances.with(engine: engine, count: 1, settings: appStore.settings()) { shared in
                let server = shared.servers[0]
                let data = server.application.configuration.dataDirectory
                let (id, finish, _) = try await PurchaseLoop.buy(port: server.port, dataDirectory: data)
                #expect(finish["appleFinish"]?.string == "server")
                #expect(finish["appleFinishDetail"]?.string?.contains("harmless") == true)
                let ledger = server.application.ledger
                try await eventually("the finish acknowledged") { try await ledger.appleJobIsDone(id) }
                // The app finishing again changes nothing at Apple: still one job, done.
                let client = try RawHTTPClient(port: server.port)
                let report = try JSONAnswer(try await client.request(PurchaseRequests.report(id)))
                #expect(report["appleJobs"]?.array.count == 1)
                #expect(report["appleJobs.0.state"]?.string == "done")
                #expect(report["appleJobs.0.attempts"]?.int == 1)
                #expect(appStore.acknowledgedFinishes() == [id: 1])
                #expect(appStore.double.requests.count == 1)
                let pending = try JSONAnswer(
                    try await client.request(RawHTTPClient.get("/v1/admin/apple-outbox", [SharedInstances.adminAuthorization])))
                #expect(pending["enabled"]?.value as? Bool == true)
                #expect(pending["jobs"]?.array.isEmpty == true)
            }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func a500ThenA429WithRetryAfterAreRetriedUntilAccepted(engine: LedgerEngine) async throws {
        try await AppStoreDoubleFixture.with { appStore in
            appStore.double.failNext(.init(count: 1, status: 500, retryAfter: nil))
            appStore.double.failNext(.init(count: 1, status: 429, retryAfter: 2))
            try await SharedInstances.with(engine: engine, count: 1, settings: appStore.settings()) { shared in
                let server = shared.servers[0]
                let (id, _, _) = try await PurchaseLoop.buy(
                    port: server.port, dataDirectory: server.application.configuration.dataDirectory)
                let ledger = server.application.ledger
                // While it waits, operators see it pending with Apple's last answer.
                try await eventually("the first failure recorded") {
                    try await ledger.storeJobs(transactionId: id).first?.lastError?.contains("500") == true
                }
                let waiting = try JSONAnswer(
                    try await RawHTTPClient(port: server.port).request(
                        RawHTTPClient.get("/v1/admin/apple-outbox", [SharedInstances.adminAuthorization])))
                #expect(waiting["jobs.0.transactionId"]?.string == id)
                #expect(waiting["jobs.0.state"]?.string == "pending")
                try await eventually("the finish acknowledged") { try await ledger.appleJobIsDone(id) }
                let requests = appStore.double.requests
                #expect(requests.map(\.status) == [500, 429, 200])
                // Apple asked for two seconds after the 429: the next attempt came no earlier.
                #expect(requests[2].receivedAt - requests[1].receivedAt >= 2)
                #expect(try await ledger.storeJobs(transactionId: id).first?.attempts == 3)
                #expect(appStore.acknowledgedFinishes() == [id: 1])
            }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func theFinishAnswerSaysWhoFinishes(engine: LedgerEngine) async throws {
        try await AppStoreDoubleFixture.with { appStore in
            // Production only: a Sandbox transaction is never sent.
            try await SharedInstances.with(engine: engine, count: 1, settings: appStore.settings(environments: ["Production"])) { shared in
                let server = shared.servers[0]
                let data = server.application.configuration.dataDirectory
                let (sandbox, answer, _) = try await PurchaseLoop.buy(port: server.port, dataDirectory: data, environment: "Sandbox")
                #expect(answer["appleFinish"]?.string == "not-applicable")
                #expect(answer["finishStoreKitTransaction"]?.value as? Bool == true)
                let (production, sent, _) = try await PurchaseLoop.buy(port: server.port, dataDirectory: data, environment: "Production")
                #expect(sent["appleFinish"]?.string == "server")
                try await eventually("the Production finish acknowledged") {
                    try await server.application.ledger.appleJobIsDone(production)
                }
                #expect(try await server.application.ledger.storeJobs(transactionId: sandbox).isEmpty)
                #expect(appStore.acknowledgedFinishes() == [production: 1])
            }
            // Not configured: the app finishes, nothing is queued.
            try await SharedInstances.with(engine: engine, count: 1) { shared in
                let server = shared.servers[0]
                let (id, answer, _) = try await PurchaseLoop.buy(
                    port: server.port, dataDirectory: server.application.configuration.dataDirectory)
                #expect(answer["appleFinish"]?.string == "app")
                #expect(try await server.application.ledger.storeJobs(transactionId: id).isEmpty)
            }
        }
    }

    /// A transaction finished while the API was not configured, confirmed again by the app once it is: the
    /// answer says Depot finishes it, and so it does.
    @Test(arguments: LedgerEngine.tested)
    func aTransactionFinishedBeforeTheAPIWasOnIsFinishedAtAppleWhenConfirmedAgain(engine: LedgerEngine) async throws {
        try await AppStoreDoubleFixture.with { appStore in
            try await SharedInstances.with(engine: engine, count: 1, settings: appStore.settings()) { shared in
                let server = shared.servers[0]
                let data = server.application.configuration.dataDirectory
                let ledger = server.application.ledger
                let client = try RawHTTPClient(port: server.port)
                let (jws, id) = try PurchaseRequests.sign(
                    dataDirectory: data, bundleId: AppStoreDoubleFixture.bundleId, product: "com.example.level1", type: "Non-Consumable")
                let answer = try JSONAnswer(try await client.request(PurchaseRequests.redeem(jws)))
                let token = try #require(answer["transaction.finishToken"]?.string)
                let contentId = try #require(answer["downloads.0.contentId"]?.string)
                let digest = try #require(answer["downloads.0.digest"]?.string.flatMap { BundleDigest(hex: $0) })
                // Recorded as a server without appStoreServerAPI would have: no job.
                let outcome = try await ledger.finish(
                    transactionId: id, claims: [ConfirmedDelivery(contentId: contentId, digest: digest)], requiresDelivery: false,
                    enqueueAppleFinish: false, now: DepotApplication.systemClock())
                #expect(outcome == .finished(firstTime: true))
                #expect(try await ledger.storeJobs(transactionId: id).isEmpty)
                let again = try await client.request(PurchaseRequests.finish(id, token: token, delivered: [(contentId, digest.hex)]))
                #expect(again.status == 200, "\(again.text)")
                #expect(try JSONAnswer(again)["appleFinish"]?.string == "server")
                try await eventually("the finish acknowledged") { try await ledger.appleJobIsDone(id) }
                #expect(appStore.acknowledgedFinishes() == [id: 1])
            }
        }
    }

    /// Two instances on one PostgreSQL ledger, each taking finishes and each running an outbox worker: every
    /// transaction is finished at the App Store exactly once.
    @Test func twoInstancesOnPostgreSQLSendEachJobOnce() async throws {
        try await AppStoreDoubleFixture.with { appStore in
            try await SharedInstances.with(engine: .postgres, count: 2, settings: appStore.settings()) { shared in
                let data = shared.servers[0].application.configuration.dataDirectory
                var ids: [String] = []
                for round in 0..<12 {
                    let server = shared.servers[round % 2]
                    ids.append(try await PurchaseLoop.buy(port: server.port, dataDirectory: data).id)
                }
                let ledger = shared.servers[0].application.ledger
                try await eventually("every finish acknowledged") {
                    for id in ids where try await !ledger.appleJobIsDone(id) { return false }
                    return true
                }
                #expect(appStore.acknowledgedFinishes() == Dictionary(uniqueKeysWithValues: ids.map { ($0, 1) }))
                #expect(appStore.double.requests.count == ids.count)
            }
        }
    }
}
