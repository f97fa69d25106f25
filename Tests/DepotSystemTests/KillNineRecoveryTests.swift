@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The reliability target ("a kill -9 at any point loses no confirmed delivery and exposes no partial
/// bundle") on the real `depot serve` binary: clients redeem, download and finish concurrently while the
/// harness kills the server with SIGKILL at points drawn from the clients' progress (after N answered
/// requests, or while the N-th redeem, download or finish of the round is in flight: every run kills at
/// every stage, on a fast machine or a loaded one), restarts it on the same data directory and ledger, and
/// checks after every restart that
/// - the server starts cleanly and answers `/healthz`, serving the same bundles (no partial one);
/// - every transaction whose finish a client saw answered 200 is `finished`, its deliveries confirmed;
/// - no transaction is `finished` without a confirmed delivery of what it entitles, nor finished twice.
///
/// Some restarts are killed too before they listen (migration, bundle import, development root), after a
/// drawn number of lines of their start-up log.
///
/// `DEPOT_CRASH_SEED` replays another sequence of kill points; `DEPOT_CRASH_ROUNDS` (default 8) makes a
/// longer run.
@Suite("kill -9 of depot serve loses no confirmed delivery", .serialized)
struct KillNineRecoveryTests {
    static let rounds = max(5, ProcessInfo.processInfo.environment["DEPOT_CRASH_ROUNDS"].flatMap { Int($0) } ?? 8)
    /// How long a round waits for its clients to reach the kill point before killing anyway: a fallback
    /// for a server that makes no progress at all, never the way a round is meant to end.
    static let roundTimeBound: Duration = .seconds(120)
    static let clients = 4
    static let bundleId = "com.example.depot.test"
    static let products: [(id: String, type: String)] = [
        ("com.example.level1", DevelopmentTransactionBuilder.ProductType.nonConsumable),
        ("com.example.coins", DevelopmentTransactionBuilder.ProductType.consumable),
    ]

    /// Small packs, so that a start (which imports them) is quick.
    static let packs: [LiveServer.PackSpec] = {
        var random = SeededBytes(seed: 7)
        return [
            LiveServer.PackSpec(
                directory: "game/level1", productId: "com.example.level1",
                files: [
                    "notes.txt": Array(String(repeating: "Depot keeps its ledger. ", count: 800).utf8),
                    "media/tiles.bin": random.bytes(96 << 10),
                ]),
            LiveServer.PackSpec(
                directory: "game/coins", productId: "com.example.coins",
                files: ["coins.json": Array("{\"coins\": 500}".utf8)]),
        ]
    }()

    @Test(arguments: LedgerEngine.tested)
    func killNineLosesNoConfirmedDelivery(engine: LedgerEngine) async throws {
        try await ServePlace.onEngine(engine) { binary, databaseURL in
            try await run(binary: binary, engine: engine, databaseURL: databaseURL)
        }
    }

    private func run(binary: String, engine: LedgerEngine, databaseURL: String?) async throws {
        let seed = ProcessInfo.processInfo.environment["DEPOT_CRASH_SEED"].flatMap { UInt64($0) } ?? 20_261_122
        let scratch = try ScratchDirectory("killNine-\(engine.rawValue)")
        defer { scratch.remove() }
        try SharedInstances.writeConfiguration(in: scratch)
        try SharedInstances.write(Self.packs, in: scratch)
        let place = ServePlace(scratch: scratch, databaseURL: databaseURL)
        let (data, arguments, environment, ledgerURL) = (place.data, place.arguments, place.environment, place.ledgerURL)
        var random = SeededBytes(seed: seed)
        let context = "engine \(engine.rawValue), DEPOT_CRASH_SEED=\(seed)"

        // Kills while the server starts, before it listens: the first start makes the development root,
        // migrates the ledger and builds the bundles, and must survive being cut anywhere.
        for _ in 0..<2 { try await Self.killDuringStart(binary: binary, arguments: arguments, environment: environment, random: &random) }

        var server = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
        do {
            let catalog = try await Self.catalogDigests(port: try #require(server.port))
            #expect(catalog.count == 2, "\(catalog)")
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: data + "/dev-ca")
            let book = CrashBook()
            let started = ContinuousClock.now
            var kills: [String] = []
            var inFlightAtKills: [FlowStage: Int] = [:]
            var fallbacks = 0
            for round in 1...Self.rounds {
                let port = try #require(server.port)
                let stop = StopFlag()
                let point = KillPoint.drawn(round: round, random: random.next())
                let killSwitch = KillSwitch(point: point, pid: server.pid)
                let clients = (0..<Self.clients).map { _ in
                    CrashClient(
                        port: port, book: book, stop: stop, killSwitch: killSwitch, authority: authority,
                        bundleId: Self.bundleId, products: Self.products, seed: random.next())
                }
                let running = Task {
                    await withTaskGroup(of: Void.self) { group in
                        for (index, client) in clients.enumerated() {
                            group.addTask { await OffPool.run("crash-client-\(index)") { client.runNow() } }
                        }
                    }
                }
                // The clients kill the server when they reach the point; the time bound is a fallback only.
                let waitStarted = ContinuousClock.now
                while !killSwitch.hasFired, ContinuousClock.now - waitStarted < Self.roundTimeBound {
                    try await Task.sleep(for: .milliseconds(5))
                }
                if killSwitch.fireNow() { fallbacks += 1 }
                let exit = await server.waitForExit()
                #expect(exit?.reason == .uncaughtSignal, "round \(round), \(context): the server ended on its own: \(server.logText)")
                stop.raise()
                await running.value
                let inFlight = killSwitch.inFlightAtKill
                inFlightAtKills.merge(inFlight, uniquingKeysWith: +)
                kills.append("\(point) (in flight: \(Self.describe(inFlight)))")

                if random.next() % 3 == 0 {
                    try await Self.killDuringStart(binary: binary, arguments: arguments, environment: environment, random: &random)
                }
                server = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
                try await Self.verify(
                    port: try #require(server.port), ledgerURL: ledgerURL, data: data, catalog: catalog, book: book,
                    context: "round \(round) (killed \(point)), \(context)")
            }

            // A graceful stop still works after all that.
            server.kill(SIGTERM)
            let exit = await server.waitForExit()
            #expect(exit?.reason == .exit && exit?.status == 0, "\(context): SIGTERM ended the server with \(String(describing: exit))")

            let totals = book.snapshot()
            print(
                "kill -9 harness, \(context): \(Self.rounds) rounds in \(ContinuousClock.now - started); "
                    + "completed: \(totals.redeemed) redemptions, \(totals.downloaded) downloads, "
                    + "\(totals.finished.count) finishes answered 200 (of \(totals.signed.count) transactions); "
                    + "interrupted flows by stage: \(Self.describe(totals.interrupted)); "
                    + "requests in flight at the kills: \(Self.describe(inFlightAtKills)); "
                    + "kills: \(kills.joined(separator: "; ")); time-bound fallbacks: \(fallbacks)")
            #expect(totals.redeemed > 0, "\(context): no redemption completed; the harness tested nothing")
            #expect(totals.downloaded > 0, "\(context): no download completed; the harness tested nothing")
            #expect(totals.finished.count > 0, "\(context): no finish was ever answered; the harness tested nothing")
            for stage in FlowStage.allCases {
                #expect(
                    (inFlightAtKills[stage] ?? 0) > 0,
                    "\(context): no kill landed during a \(stage.rawValue); kills: \(kills)")
            }
            #expect(fallbacks < Self.rounds, "\(context): every round ended on the time bound; the clients made no progress")
        } catch {
            server.killIfRunning()
            throw error
        }
        server.killIfRunning()
    }

    /// Starts the server and kills it once it has written a drawn number (0-5) of log lines, mostly before it
    /// listens; a start that listens or ends first is killed then.
    static func killDuringStart(
        binary: String, arguments: [String], environment: [String: String], random: inout SeededBytes
    ) async throws {
        let lines = Int(random.next() % 6)
        let early = try DepotProcess.launch(binary: binary, arguments: arguments, environment: environment)
        let started = ContinuousClock.now
        while early.logLineCount < lines, early.port == nil, early.isRunning, ContinuousClock.now - started < roundTimeBound {
            try await Task.sleep(for: .milliseconds(1))
        }
        early.kill(SIGKILL)
        _ = await early.waitForExit()
    }

    static func describe(_ counts: [FlowStage: Int]) -> String {
        FlowStage.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: ", ")
    }

    /// Content id → digest, from `GET /v1/products`.
    static func catalogDigests(port: Int) async throws -> [String: String] {
        let response = try await RawHTTPClient(port: port).request(RawHTTPClient.get("/v1/products"))
        try #require(response.status == 200)
        var digests: [String: String] = [:]
        for product in try JSONAnswer(response)["products"]?.array ?? [] {
            for content in product["contents"]?.array ?? [] {
                if let id = content["id"]?.string, let digest = content["digest"]?.string { digests[id] = digest }
            }
        }
        return digests
    }

    /// The checks after a restart; the clients are stopped meanwhile.
    static func verify(
        port: Int, ledgerURL: String, data: String, catalog: [String: String], book: CrashBook, context: String
    ) async throws {
        let health = try await RawHTTPClient(port: port).request(RawHTTPClient.get("/healthz"))
        #expect(health.status == 200, "\(context)")
        #expect(try await catalogDigests(port: port) == catalog, "\(context): the restarted server serves other bundles")
        let leftovers = partialFiles(under: data + "/bundles/tmp")
        #expect(leftovers.isEmpty, "\(context): half-written bundles left in the store: \(leftovers)")

        let snapshot = book.snapshot()
        for problem in snapshot.problems.prefix(10) { Issue.record("\(context): \(problem)") }
        var problems: [String] = []
        try await LedgerReader.with(ledgerURL) { ledger in
            for (id, product) in snapshot.signed.sorted(by: { $0.key < $1.key }) {
                let stored = try await ledger.transaction(id: id)
                let sawFinished = snapshot.finished.contains(id)
                guard let stored else {
                    if sawFinished { problems.append("\(id): a client saw it finished, the ledger does not know it") }
                    continue
                }
                let trail = try await ledger.auditTrail(transactionId: id).map(\.event)
                let finishedEvents = trail.filter { $0 == "finished" }.count
                if stored.state != .finished {
                    if sawFinished { problems.append("\(id): a client saw it finished, the ledger says \(stored.state)") }
                    if finishedEvents != 0 { problems.append("\(id): pending with a finished event: \(trail)") }
                    continue
                }
                if finishedEvents != 1 { problems.append("\(id): finished with \(finishedEvents) finished events: \(trail)") }
                let deliveries = try await ledger.deliveries(transactionId: id)
                let expected = catalog[product]  // each product's content id is its product id
                let confirmed = deliveries.filter { $0.delivery.contentId == product && $0.confirmedAt != nil }
                if confirmed.isEmpty || confirmed.contains(where: { $0.delivery.digest.hex != expected }) {
                    problems.append(
                        "\(id): finished without a confirmed delivery of \(product) (\(String(describing: expected))): \(deliveries)")
                }
                if deliveries.contains(where: { $0.confirmedAt == nil }) {
                    problems.append("\(id): finished with an unconfirmed delivery: \(deliveries)")
                }
            }
        }
        for problem in problems.prefix(10) { Issue.record("\(context): \(problem)") }
        if problems.count > 10 { Issue.record("\(context): and \(problems.count - 10) more") }

        // The restarted server reads the same: a few finished transactions through its admin report.
        let client = try RawHTTPClient(port: port)
        for id in snapshot.finished.sorted().suffix(3) {
            let report = try await client.request(PurchaseRequests.report(id))
            #expect(report.status == 200, "\(context): \(report.text)")
            #expect(try JSONAnswer(report)["transaction.state"]?.string == "finished", "\(context): \(id)")
        }
    }
}
