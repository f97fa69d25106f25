@testable import DepotServerTestSupport
import DepotLedger
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// PostgreSQL failing under a running `depot serve`, through the fault proxy: refused (a stopped server),
/// blackholed (a network that stopped answering), reset, and slow. Every request that needs the ledger answers
/// within `ledger.waitSeconds` with 503 `ledger-unavailable` and `Retry-After`; a bundle with a valid grant is still
/// served (the byte path does not need the ledger); once the database answers again, the first request succeeds
/// within seconds (the pool is replaced, not left to its minute of backoff), and a retried redeem or finish gets the
/// same transaction, nothing lost.
@Suite("PostgreSQL faults under depot serve", .serialized)
struct PostgresFaultTests {
    /// The ledger's wait bound in these tests.
    static let waitSeconds = 2
    /// How long an answer may take, past the bound, on a loaded machine (the bound's grace is 2 s); far below the minute a
    /// stuck pool took.
    static let answerSlack: Duration = .seconds(12)
    /// How long recovery may take after the database is back: the watch probes twice a second; far below the
    /// minute of postgres-nio's backoff.
    static let recoveryBound: Duration = .seconds(20)

    /// Every mode of the proxy but `pass`.
    static let faults: [FaultProxy.Mode] = [
        .refuse, .blackhole, .reset, .slow(latency: .seconds(waitSeconds * 3), bytesPerSecond: 1 << 20),
    ]

    @Test func everyFaultIsAnsweredWithinItsBoundAndRecoveredFrom() async throws {
        try await ServePlace.onEngine(.postgres) { binary, databaseURL in
            let databaseURL = try #require(databaseURL)
            guard var components = URLComponents(string: databaseURL), let upstream = components.port else {
                Issue.record("the test database's URL has no port: \(databaseURL)")
                return
            }
            guard let proxy = try await FaultProxy.start(upstreamPort: upstream) else { return }
            defer { proxy.stop() }
            components.port = proxy.port
            let proxied = try #require(components.string)

            let scratch = try ScratchDirectory("postgresFaults")
            defer { scratch.remove() }
            try SharedInstances.writeConfiguration(in: scratch)
            try Self.setWaitSeconds(in: scratch)
            try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
            let place = ServePlace(scratch: scratch, databaseURL: proxied)
            let server = try await DepotProcess.start(binary: binary, arguments: place.arguments, environment: place.environment)
            defer { server.killIfRunning() }
            let port = try #require(server.port)
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: place.data + "/dev-ca")

            do {
                try await Self.exercise(proxy: proxy, server: server, port: port, authority: authority)
            } catch {
                try? server.logText.write(toFile: "/tmp/pgfault-server.log", atomically: true, encoding: .utf8)
                Issue.record("\(error); the server's log:\n\(server.logText.suffix(8000))")
            }
            server.kill(SIGTERM)
            _ = await server.waitForExit(timeout: .seconds(60))
        }
    }

    static func exercise(
        proxy: FaultProxy, server: DepotProcess, port: Int, authority: DevelopmentCertificateAuthority
    ) async throws {
        do {
            // A purchase redeemed while all is well: its grant is used while the ledger is down.
            let first = try await Purchase.redeem(port: port, authority: authority)
            for fault in Self.faults {
                try await proxy.set(fault)
                let context = "fault \(fault)"
                // A new redeem, a finish and readiness: each answered within its bound, 503 with the code.
                let second = try Purchase.signed(authority: authority)
                let (redeemAnswer, redeemTime) = try await Self.timed { try await second.post(port: port) }
                Self.expectUnavailable(redeemAnswer, redeemTime, "\(context): redeem")
                let (finishAnswer, finishTime) = try await Self.timed { try await first.finish(port: port) }
                Self.expectUnavailable(finishAnswer, finishTime, "\(context): finish")
                let ready = try await RawHTTPClient(port: port).request(RawHTTPClient.get("/readyz"))
                #expect(ready.status == 503, "\(context): /readyz \(ready.status) \(ready.text)")
                // The byte path does not need the ledger.
                let bundle = try await RawHTTPClient(port: port).request(RawHTTPClient.get(first.url))
                #expect(bundle.status == 200, "\(context): a granted download answered \(bundle.status) \(bundle.text)")

                // The database is back: the first redeem succeeds within seconds, with the same transaction.
                try await proxy.set(.pass)
                let back = ContinuousClock.now
                var recovered: RawHTTPClient.Response?
                while ContinuousClock.now - back < Self.recoveryBound {
                    let answer = try await second.post(port: port)
                    if answer.status == 200 {
                        recovered = answer
                        break
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
                let recovery = ContinuousClock.now - back
                let answer = try #require(
                    recovered, "\(context): no redeem succeeded within \(Self.recoveryBound) of the database's return")
                let transaction = try #require(try PurchaseSteps.object(answer)["transaction"] as? [String: Any])
                #expect(transaction["id"] as? String == second.id, "\(context)")
                print("\(context): recovered \(recovery) after the database's return")
                var readyAgain = false
                while !readyAgain, ContinuousClock.now - back < Self.recoveryBound {
                    readyAgain = try await RawHTTPClient(port: port).request(RawHTTPClient.get("/readyz")).status == 200
                    if !readyAgain { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(readyAgain, "\(context): /readyz did not come back")
            }
            // The finish refused during every fault goes through now, and the ledger holds it.
            let finished = try await first.finish(port: port)
            #expect(finished.status == 200, "\(finished.text)")
            let state = (try PurchaseSteps.object(finished)["transaction"] as? [String: Any])?["state"] as? String
            #expect(state == "finished")
        }
    }

    /// Sets `ledger.waitSeconds` in the configuration `writeConfiguration` wrote.
    static func setWaitSeconds(in scratch: ScratchDirectory) throws {
        let path = scratch.path + "/Config/depot.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let changed = text.replacingOccurrences(
            of: "\"waitSeconds\": 60", with: "\"waitSeconds\": \(waitSeconds)")
        #expect(changed != text, "the configuration's ledger section moved")
        try changed.write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func timed(_ body: () async throws -> RawHTTPClient.Response) async throws -> (RawHTTPClient.Response, Duration) {
        let start = ContinuousClock.now
        let answer = try await body()
        return (answer, ContinuousClock.now - start)
    }

    static func expectUnavailable(
        _ answer: RawHTTPClient.Response, _ time: Duration, _ context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(answer.status == 503, "\(context): \(answer.status) \(answer.text)", sourceLocation: sourceLocation)
        #expect(answer.text.contains("\"ledger-unavailable\""), "\(context): \(answer.text)", sourceLocation: sourceLocation)
        #expect(answer.value("Retry-After") != nil, "\(context): no Retry-After", sourceLocation: sourceLocation)
        #expect(
            time < .seconds(waitSeconds) + answerSlack, "\(context): answered after \(time)", sourceLocation: sourceLocation)
    }

    /// One non-consumable purchase of the test's product, as an app makes it.
    struct Purchase {
        let jws: String
        let id: String
        var finishToken = ""
        var url = ""
        var digest = ""

        static func signed(authority: DevelopmentCertificateAuthority) throws -> Purchase {
            let builder = DevelopmentTransactionBuilder(
                bundleId: "com.example.depot.test", productId: "com.example.level1",
                type: DevelopmentTransactionBuilder.ProductType.nonConsumable)
            return Purchase(jws: try authority.sign(payload: builder.payload()), id: builder.transactionId)
        }

        static func redeem(port: Int, authority: DevelopmentCertificateAuthority) async throws -> Purchase {
            var purchase = try signed(authority: authority)
            let answer = try await purchase.post(port: port)
            #expect(answer.status == 200, "\(answer.text)")
            let object = try PurchaseSteps.object(answer)
            purchase.finishToken = try #require((object["transaction"] as? [String: Any])?["finishToken"] as? String)
            let download = try #require((object["downloads"] as? [[String: Any]])?.first)
            purchase.url = try #require(download["url"] as? String)
            purchase.digest = try #require(download["digest"] as? String)
            return purchase
        }

        func post(port: Int) async throws -> RawHTTPClient.Response {
            try await PurchaseSteps.post(try RawHTTPClient(port: port), "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}")
        }

        func finish(port: Int) async throws -> RawHTTPClient.Response {
            try await PurchaseSteps.post(
                try RawHTTPClient(port: port), "/v1/transactions/\(id)/finish",
                "{\"finishToken\": \"\(finishToken)\", \"delivered\": [{\"contentId\": \"com.example.level1\", \"digest\": \"\(digest)\"}]}"
            )
        }
    }
}
