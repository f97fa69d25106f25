@testable import DepotServerTestSupport
import DepotAppStoreDouble
import DepotLedger
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A `depot serve` process killed with SIGKILL while it was sending Finish Transaction (its lease held, the
/// App Store not answering yet): after a restart, the job is claimed again once the lease ended and Apple
/// receives the finish from the restarted sender alone. Real processes, both ledger engines.
@Suite("App Store outbox across kill -9")
struct AppleOutboxKillNineTests {
    @Test(arguments: LedgerEngine.tested)
    func aJobWhoseSenderDiedIsSentOnceAfterRestart(engine: LedgerEngine) async throws {
        try await ServePlace.onEngine(engine) { binary, databaseURL in
            try await run(binary: binary, engine: engine, databaseURL: databaseURL)
        }
    }

    private func run(binary: String, engine: LedgerEngine, databaseURL: String?) async throws {
        try await AppStoreDoubleFixture.with("outboxKillNine-\(engine.rawValue)") { appStore in
            let scratch = try ScratchDirectory("outboxKillNine-\(engine.rawValue)")
            defer { scratch.remove() }
            let silent = try SilentListener()
            let leaseSeconds = 3
            try SharedInstances.writeConfiguration(
                in: scratch,
                settings: appStore.settings(
                    base: "http://127.0.0.1:\(silent.port)", leaseSeconds: leaseSeconds, timeoutSeconds: 300))
            try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
            let place = ServePlace(scratch: scratch, databaseURL: databaseURL)
            let (data, arguments, environment, ledgerURL) = (place.data, place.arguments, place.environment, place.ledgerURL)

            // 1. The delivery is confirmed; the sender claims the job and waits on an App Store that never answers.
            let first = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
            let id: String
            do {
                id = try await PurchaseLoop.buy(port: try #require(first.port), dataDirectory: data).id
                try await eventually("the job leased by the first process") {
                    try await LedgerReader.with(ledgerURL) { ledger in
                        try await ledger.storeJobs(transactionId: id).first?.leaseOwner != nil
                    }
                }
            } catch {
                first.killIfRunning()
                throw error
            }
            // 2. kill -9 mid-call.
            first.kill(SIGKILL)
            #expect(await first.waitForExit()?.reason == .uncaughtSignal)
            let leased = try await LedgerReader.with(ledgerURL) { ledger in try await ledger.storeJobs(transactionId: id) }
            // One attempt, unless a very slow machine let the silent call time out before the kill (the job is
            // then claimed again, and Apple has still received nothing).
            #expect(leased.count == 1 && leased.first?.state == .pending)
            let attemptsAtKill = leased.first?.attempts ?? 0
            #expect(attemptsAtKill >= 1)
            // Operators see it pending.
            let command = DepotCommand(scratch: scratch, databaseURL: databaseURL)
            let listing = try await ExternalTool.run(command.binary, ["transactions", "--apple-pending"] + command.place)
            #expect(listing.status == 0, "\(listing.error)")
            #expect(listing.output.contains("\(id)\tSandbox\tpending\t\(attemptsAtKill)"), "\(listing.output)")
            #expect(listing.output.contains("1 pending, 0 failed"), "\(listing.output)")

            // 3. Restarted, now reaching the App Store: the job is claimed again once the dead sender's lease
            // ended, and sent.
            // The dead sender's lease (3 s) was written by its claim. The new sender waits up to 300 s for the App
            // Store double (it answers from this test process, which a loaded machine can hold up for a minute)
            // and holds its own claims longer still, so a slow answer is neither timed out and sent again nor
            // taken for an abandoned call.
            try SharedInstances.writeConfiguration(
                in: scratch, settings: appStore.settings(leaseSeconds: 600, timeoutSeconds: 300))
            let second = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
            do {
                try await eventually("the finish acknowledged after the restart") {
                    try await LedgerReader.with(ledgerURL) { ledger in try await ledger.appleJobIsDone(id) }
                }
            } catch {
                second.killIfRunning()
                throw error
            }
            second.kill(SIGTERM)
            _ = await second.waitForExit()
            // Apple receives the finish from the restarted sender alone, one call per claim of its own: the dead
            // sender's lease kept the job from a second sender, and nothing was lost. A call the sender saw fail
            // (a loaded machine has held this test process, and the double answering in it, past the call) is
            // tried again (by the client, or claimed again after its backoff), which Finish Transaction allows; so
            // more than one send is no fault as long as each was acknowledged and every claim sent the call.
            let sends = appStore.double.requests.count
            #expect(sends >= 1)
            #expect(appStore.acknowledgedFinishes() == [id: sends])
            let done = try await LedgerReader.with(ledgerURL) { ledger in try await ledger.storeJobs(transactionId: id) }
            #expect(done.first?.state == .done)
            let claims = (done.first?.attempts ?? 0) - attemptsAtKill
            #expect(claims >= 1 && claims <= sends, "\(claims) claims after the restart, \(sends) sends")
            let after = try await ExternalTool.run(command.binary, ["transactions", "--apple-pending"] + command.place)
            #expect(after.output.contains("0 pending, 0 failed"), "\(after.output)")
        }
    }
}
