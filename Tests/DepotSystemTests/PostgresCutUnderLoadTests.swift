@testable import DepotServerTestSupport
import DepotLedger
import DepotServer
import DepotSettings
import DepotTestSupport
import DepotTrust
import Foundation
import Synchronization
import Testing

/// PostgreSQL cut (reset, refused, then blackholed) through the fault proxy while buyers redeem, download and finish on
/// two instances that send Finish Transaction to the App Store double: every buyer retries a 503 with the same
/// transaction and finish token, as an app does, and in the end every confirmed delivery is finished in the ledger and
/// was sent to Apple exactly once.
@Suite("PostgreSQL cut under redeems, finishes and store calls", .serialized)
struct PostgresCutUnderLoadTests {
    static let buyers = 8
    /// The ledger's wait bound in this test: a request answers 503 within it while the database is cut (at once when
    /// it is refused or reset). Generous, so that a loaded machine's start and ordinary statements stay within it.
    static let waitSeconds = 15
    /// How long a buyer keeps retrying one step that answers 503 before the test gives up on it.
    static let retryBound: Duration = .seconds(180)

    @Test func nothingConfirmedIsLostAndNoStoreCallIsSentTwice() async throws {
        guard let serverURL = ProcessInfo.processInfo.environment[PostgresTestDatabase.variable],
            let upstream = URLComponents(string: serverURL)?.port
        else {
            // SharedInstances says how to enable it, or fails under CI.
            try await SharedInstances.with(engine: .postgres) { _ in }
            return
        }
        guard let proxy = try await FaultProxy.start(upstreamPort: upstream) else { return }
        defer { proxy.stop() }
        try await AppStoreDoubleFixture.with { appStore in
            try await SharedInstances.with(
                engine: .postgres, count: 2, settings: appStore.settings(leaseSeconds: 30), ledgerWaitSeconds: Self.waitSeconds,
                ledgerURLThrough: { url in
                    var components = try #require(URLComponents(string: url))
                    components.port = proxy.port
                    return try #require(components.string)
                }
            ) { shared in
                let ports = shared.servers.map(\.port)
                let data = shared.servers[0].application.configuration.dataDirectory
                let cutOver = Flag()
                let unavailable = Counter()
                // Each buyer buys one purchase after another until the cut is over, so that the cut meets them whatever
                // the machine's speed.
                let buying = Task {
                    try await withThrowingTaskGroup(of: [String].self) { group in
                        for buyer in 0..<Self.buyers {
                            group.addTask {
                                var ids: [String] = []
                                repeat {
                                    ids.append(
                                        try await Self.buy(
                                            port: ports[buyer % ports.count], dataDirectory: data, unavailable: unavailable))
                                } while !cutOver.isSet
                                return ids
                            }
                        }
                        return try await group.reduce(into: []) { $0 += $1 }
                    }
                }
                // The cut, while the buyers are under way.
                try await Task.sleep(for: .milliseconds(300))
                for mode in [FaultProxy.Mode.reset, .refuse, .blackhole] {
                    try await proxy.set(mode)
                    try await Task.sleep(for: .seconds(2))
                }
                try await proxy.set(.pass)
                cutOver.set()
                let finished = try await buying.value
                #expect(finished.count >= Self.buyers)
                #expect(unavailable.value > 0, "the cut answered no request 503: it met no buyer")
                print("\(finished.count) purchases finished; \(unavailable.value) answers were 503 during the cut")

                // Every confirmed delivery is in the ledger, finished, and was finished at Apple exactly once.
                let ledger = shared.servers[0].application.ledger
                for id in finished {
                    #expect(try await ledger.transaction(id: id)?.state == .finished, "\(id)")
                    try await eventually("Finish Transaction sent for \(id)") { try await ledger.appleJobIsDone(id) }
                }
                #expect(appStore.acknowledgedFinishes() == Dictionary(uniqueKeysWithValues: finished.map { ($0, 1) }))
            }
        }
    }

    /// One purchase as an app makes it, retrying each step that answers 503 with the same request; returns its
    /// transaction id once its finish answered 200.
    static func buy(port: Int, dataDirectory: String, unavailable: Counter) async throws -> String {
        let (jws, id) = try PurchaseRequests.sign(
            dataDirectory: dataDirectory, bundleId: AppStoreDoubleFixture.bundleId, product: "com.example.level1",
            type: "Non-Consumable"
        ) { $0.environment = "Sandbox" }
        let redeemed = try JSONAnswer(try await retrying(port: port, PurchaseRequests.redeem(jws), unavailable: unavailable))
        let token = try #require(redeemed["transaction.finishToken"]?.string)
        var delivered: [(contentId: String, digest: String)] = []
        for download in redeemed["downloads"]?.array ?? [] {
            let bytes = try await RawHTTPClient(port: port).request(RawHTTPClient.get(try #require(download["url"]?.string)))
            #expect(bytes.status == 200, "a granted download needs no ledger")
            delivered.append((try #require(download["contentId"]?.string), try #require(download["digest"]?.string)))
        }
        _ = try await retrying(port: port, PurchaseRequests.finish(id, token: token, delivered: delivered), unavailable: unavailable)
        return id
    }

    /// The answer to `request` once it is not 503; any other status than 200 fails the test.
    static func retrying(port: Int, _ request: String, unavailable: Counter) async throws -> RawHTTPClient.Response {
        let start = ContinuousClock.now
        while true {
            let answer = try await RawHTTPClient(port: port).request(request)
            if answer.status == 503, ContinuousClock.now - start < retryBound {
                #expect(answer.text.contains("ledger-unavailable"), "\(answer.text)")
                unavailable.add()
                try await Task.sleep(for: .milliseconds(200))
                continue
            }
            #expect(answer.status == 200, "\(answer.status) \(answer.text)")
            return answer
        }
    }

    /// Set once, read by every buyer.
    final class Flag: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }

    /// Counts the answers that were 503.
    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }
}
