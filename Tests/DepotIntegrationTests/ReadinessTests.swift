@testable import DepotServerTestSupport
import DepotLedger
import DepotTestSupport
import Foundation
import Testing

@testable import DepotServer

/// `/readyz` says whether the server can work: ready with a readable ledger and a writable store, 503 with
/// the reason once the ledger cannot be read; `/healthz` (liveness) stays 200 either way.
@Suite("Readiness")
struct ReadinessTests {
    @Test func readyUntilTheLedgerCannotBeRead() async throws {
        try await LiveServer.with { server in
            // A machine loaded enough to hold a ledger read past the probe's timeout is rightly not ready yet.
            var answer: RawHTTPClient.Response?
            try await eventually("the server is ready", within: 300) {
                answer = try await RawHTTPClient(port: server.port).request(RawHTTPClient.get("/readyz"))
                return answer?.status == 200
            }
            let ready = try #require(answer)
            #expect(ready.text == "ready\n")
            #expect(ready.value("Cache-Control") == "no-store")

            // The ledger closed under the running server: every read fails.
            let sqlite = try #require(server.application.ledger as? SQLiteLedger)
            try sqlite.close()
            // Every answer from now on is 503. A loaded machine may hold even the failing read past the probe's
            // five seconds (then the reason is the timeout); the read's own failure is the reason once it gets the CPU.
            var notReady: RawHTTPClient.Response?
            try await eventually("the reason is the ledger's failure", within: 300) {
                let answer = try await RawHTTPClient(port: server.port).request(RawHTTPClient.get("/readyz"))
                #expect(answer.status == 503, "\(answer.text)")
                notReady = answer
                return answer.text.hasPrefix("not ready: the ledger cannot be read")
            }
            #expect(notReady?.status == 503)
            let alive = try await RawHTTPClient(port: server.port).request(RawHTTPClient.get("/healthz"))
            #expect(alive.status == 200)
        }
    }

    @Test func aLedgerThatDoesNotAnswerInTimeOrAMissingStoreIsNotReady() async throws {
        try await LiveServer.with { server in
            let ledger = server.application.ledger
            let read: @Sendable () async throws(LedgerError) -> Void = { () async throws(LedgerError) in
                _ = try await ledger.catalogRevision()
            }
            // A ledger read that never ends (an unreachable server) does not hold the probe.
            let hanging = ReadinessRoute(
                readLedger: { () async throws(LedgerError) in try? await Task.sleep(for: .seconds(3600)) },
                storeDirectory: server.scratch.path + "/data/bundles", ledgerTimeout: .milliseconds(200))
            let reason = await hanging.reasonNotReady()
            #expect(reason?.hasPrefix("the ledger did not answer within") == true, "\(String(describing: reason))")
            // The ledger answers these two however long a loaded machine makes it take.
            let patient = Duration.seconds(300)
            let missing = ReadinessRoute(
                readLedger: read, storeDirectory: server.scratch.path + "/nowhere", ledgerTimeout: patient)
            #expect(await missing.reasonNotReady()?.hasPrefix("the bundle store") == true)
            let ready = ReadinessRoute(
                readLedger: read, storeDirectory: server.scratch.path + "/data/bundles", ledgerTimeout: patient)
            let readyReason = await ready.reasonNotReady()
            #expect(readyReason == nil, "\(readyReason ?? "")")
        }
    }
}
