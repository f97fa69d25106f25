@testable import DepotServerTestSupport
import DepotGooglePlayDouble
import DepotLedger
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A `depot serve` process killed with SIGKILL after a Google Play delivery was confirmed, while its
/// acknowledgement was under way (its lease held, Google not answering): after a restart that reaches Google,
/// the acknowledgement is sent, and Google receives exactly one. Real processes, both ledger engines.
@Suite("Google Play acknowledgement across kill -9")
struct GooglePlayOutboxKillNineTests {
    @Test(arguments: LedgerEngine.tested)
    func anAcknowledgementWhoseSenderDiedIsSentOnceAfterRestart(engine: LedgerEngine) async throws {
        try await ServePlace.onEngine(engine) { binary, databaseURL in
            try await run(binary: binary, engine: engine, databaseURL: databaseURL)
        }
    }

    private func run(binary: String, engine: LedgerEngine, databaseURL: String?) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with("playKillNine-\(engine.rawValue)") { play in
            let scratch = try ScratchDirectory("playKillNine-\(engine.rawValue)")
            defer { scratch.remove() }
            let silent = try SilentListener()
            try SharedInstances.writeConfiguration(
                in: scratch,
                settings: play.settings(signer, base: "http://127.0.0.1:\(silent.port)", leaseSeconds: 3, timeoutSeconds: 300))
            try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
            let place = ServePlace(scratch: scratch, databaseURL: databaseURL)
            let (arguments, environment, ledgerURL) = (place.arguments, place.environment, place.ledgerURL)

            // 1. The delivery is confirmed; the sender claims the job and waits on a Google that never answers.
            let level = try play.purchase(signer, productId: "level1")
            let first = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
            let id: String
            do {
                let client = try RawHTTPClient(port: try #require(first.port))
                let bought = try await GooglePlaySteps.buy(client, level, contentId: "com.example.level1")
                id = bought.id
                #expect(bought.finish["storeFinish"] as? String == "server")
                try await eventually("the job leased by the first process") {
                    try await LedgerReader.with(ledgerURL) { ledger in
                        try await ledger.storeJobs(transactionId: id).first?.leaseOwner != nil
                    }
                }
            } catch {
                first.killIfRunning()
                throw error
            }
            // 2. kill -9 mid-call: Google has received nothing.
            first.kill(SIGKILL)
            #expect(await first.waitForExit()?.reason == .uncaughtSignal)
            #expect(play.completed("acknowledge").isEmpty)
            let leased = try await LedgerReader.with(ledgerURL) { ledger in try await ledger.storeJobs(transactionId: id) }
            #expect(leased.count == 1 && leased.first?.state == .pending)

            // 3. Restarted, now reaching Google: the job is claimed again once the dead sender's lease ended.
            try SharedInstances.writeConfiguration(in: scratch, settings: play.settings(signer, leaseSeconds: 600, timeoutSeconds: 300))
            let second = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
            do {
                try await eventually("the acknowledgement sent after the restart") {
                    try await LedgerReader.with(ledgerURL) { ledger in try await ledger.appleJobIsDone(id) }
                }
            } catch {
                second.killIfRunning()
                throw error
            }
            second.kill(SIGTERM)
            _ = await second.waitForExit()
            // Exactly one acknowledgement reached Google, and Google holds the purchase as acknowledged.
            #expect(play.completed("acknowledge") == [level.token: 1])
            #expect(play.double.purchase(token: level.token)?.acknowledgementState == 1)
        }
    }
}
