@testable import DepotServerTestSupport
import DepotLedger
import DepotServer
import DepotSettings
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// The App Store Server API failing under running instances, through the fault proxy between them and the App Store
/// double: refused, blackholed, cut mid-answer and slow. Redeems and finishes are answered as usual (no purchase waits
/// on Apple); Finish Transaction waits in the outbox, and once Apple answers again it is sent, exactly once per
/// confirmed delivery.
@Suite("The App Store Server API failing under live servers", .serialized)
struct StoreAPIFaultTests {
    @Test(arguments: LedgerEngine.tested)
    func purchasesGoOnAndEachFinishReachesAppleOnceItAnswers(engine: LedgerEngine) async throws {
        try await AppStoreDoubleFixture.with { appStore in
            guard let upstream = URLComponents(string: appStore.base)?.port else {
                Issue.record("the App Store double's base URL has no port: \(appStore.base)")
                return
            }
            guard let proxy = try await FaultProxy.start(upstreamPort: upstream) else { return }
            defer { proxy.stop() }
            // A call's timeout of 3 s: a blackholed or slow call gives up and is retried.
            let settings = appStore.settings(base: "http://127.0.0.1:\(proxy.port)", leaseSeconds: 30, timeoutSeconds: 3)
            try await SharedInstances.with(engine: engine, count: 1, settings: settings) { shared in
                let server = shared.servers[0]
                let data = server.application.configuration.dataDirectory
                let ledger = server.application.ledger
                var finished: [String] = []
                let faults: [FaultProxy.Mode] = [.refuse, .blackhole, .reset, .slow(latency: .seconds(5), bytesPerSecond: 1 << 20)]
                for fault in faults {
                    try await proxy.set(fault)
                    let (id, answer, _) = try await PurchaseLoop.buy(port: server.port, dataDirectory: data)
                    #expect(answer["appleFinish"]?.string == "server", "fault \(fault)")
                    finished.append(id)
                    // While Apple cannot be reached the call stays pending, with the reason recorded.
                    try await eventually("fault \(fault): a failed attempt recorded") {
                        try await ledger.storeJobs(transactionId: id).first?.lastError != nil
                    }
                    #expect(try await ledger.appleJobIsDone(id) == false, "fault \(fault): acknowledged through a failing proxy")
                    try await proxy.set(.pass)
                    try await eventually("fault \(fault): the finish acknowledged once Apple answers") {
                        try await ledger.appleJobIsDone(id)
                    }
                }
                // Refused or reset, a call never reached Apple: each delivery was finished there once. Blackholed or slow,
                // a call the client gave up on may still arrive (the network delivers what it held once it flows again),
                // so Apple may see a delivery's Finish Transaction twice: harmless, as Finish Transaction is idempotent,
                // and never more often than the job was attempted.
                let counts = appStore.acknowledgedFinishes()
                for (fault, id) in zip(faults, finished) {
                    let count = counts[id] ?? 0
                    switch fault {
                    case .refuse, .reset: #expect(count == 1, "fault \(fault): \(count) finishes at Apple")
                    default:
                        let attempts = try await ledger.storeJobs(transactionId: id).first?.attempts ?? 0
                        #expect(count >= 1 && count <= attempts, "fault \(fault): \(count) finishes at Apple in \(attempts) attempts")
                    }
                }
            }
        }
    }
}
