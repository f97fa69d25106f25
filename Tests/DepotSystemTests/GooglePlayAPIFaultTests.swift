@testable import DepotServerTestSupport
import DepotGooglePlayDouble
import DepotLedger
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// The Google Play Developer API failing under a live server, through the fault proxy between it and the Google Play
/// double: refused, blackholed, reset and slow. A redeem waits on Google for a purchase's type at most a few seconds,
/// then the offline judgement applies; the acknowledgement waits in the outbox and reaches Google once it answers.
@Suite("The Google Play Developer API failing under a live server", .serialized)
struct GooglePlayAPIFaultTests {
    /// How long a redeem may take while Google does not answer: the request path's 5 s bound, the token's fetch and a
    /// loaded machine; far below the 60 s of the client's own timeout in this test.
    static let redeemBound: Duration = .seconds(30)

    @Test(arguments: LedgerEngine.tested)
    func redeemsGoOnAndEachAcknowledgementReachesGoogleOnceItAnswers(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            guard let upstream = URLComponents(string: play.base)?.port else {
                Issue.record("the Google Play double's base URL has no port: \(play.base)")
                return
            }
            guard let proxy = try await FaultProxy.start(upstreamPort: upstream) else { return }
            defer { proxy.stop() }
            let settings = play.settings(signer, base: "http://127.0.0.1:\(proxy.port)", leaseSeconds: 30, timeoutSeconds: 60)
            try await GooglePlayLiveServer.with(engine, settings: settings) { server in
                let ledger = server.application.ledger
                var acknowledged: [(FaultProxy.Mode, String)] = []
                for fault in [FaultProxy.Mode.refuse, .blackhole, .reset, .slow(latency: .seconds(8), bytesPerSecond: 1 << 20)] {
                    try await proxy.set(fault)
                    let purchase = try play.purchase(signer, productId: "level1")
                    let start = ContinuousClock.now
                    let (id, finish, _) = try await GooglePlaySteps.buy(
                        try RawHTTPClient(port: server.port), purchase, contentId: "com.example.level1")
                    let took = ContinuousClock.now - start
                    #expect(took < Self.redeemBound, "fault \(fault): the purchase took \(took)")
                    #expect(finish["storeFinish"] as? String == "server", "fault \(fault)")
                    #expect(try await ledger.appleJobIsDone(id) == false, "fault \(fault): acknowledged through a failing proxy")
                    try await proxy.set(.pass)
                    try await eventually("fault \(fault): the purchase acknowledged once Google answers") {
                        try await ledger.appleJobIsDone(id)
                    }
                    #expect(play.double.purchase(token: purchase.token)?.acknowledgementState == 1)
                    acknowledged.append((fault, purchase.token))
                }
                // Refused or reset, a call never reached Google: one acknowledgement each. Blackholed or slow, a call the
                // client gave up on may still arrive (acknowledging is idempotent at Google).
                let counts = play.completed("acknowledge")
                for (fault, token) in acknowledged {
                    switch fault {
                    case .refuse, .reset: #expect(counts[token] == 1, "fault \(fault): \(counts[token] ?? 0) acknowledgements")
                    default: #expect((counts[token] ?? 0) >= 1, "fault \(fault)")
                    }
                }
            }
        }
    }
}
