@testable import DepotServerTestSupport
import DepotLedger
import DepotObjectStore
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `depot serve` whose bucket cannot be reached, through the fault proxy between it and the test's S3 gateway: refused
/// at start, the instance starts all the same, serves the bundles it built from its own disk, says why it is not ready,
/// and sends them to the bucket once it answers, without a restart; blackholed while serving, downloads go on and
/// readiness says so within the client's bound.
@Suite("A bucket that fails under depot serve", .serialized)
struct ObjectStoreFaultTests {
    @Test(arguments: LedgerEngine.allCases)
    func aBucketRefusedAtStartIsFilledOnceItAnswersAndABlackholedOneStopsNoDownload(engine: LedgerEngine) async throws {
        guard let store = try await TestObjectStore.make() else { return }
        guard let endpoint = URLComponents(string: store.settings.endpoint), let upstream = endpoint.port else {
            Issue.record("the test object store's endpoint has no port: \(store.settings.endpoint)")
            return
        }
        guard let proxy = try await FaultProxy.start(upstreamPort: upstream) else { return }
        defer { proxy.stop() }
        try await ServePlace.onEngine(engine) { binary, databaseURL in
            try await proxy.set(.refuse)
            var proxied = store.settings
            proxied.endpoint = "http://127.0.0.1:\(proxy.port)"
            proxied.timeoutSeconds = 3
            let scratch = try ScratchDirectory("bucketFaults")
            defer { scratch.remove() }
            try SharedInstances.writeConfiguration(
                in: scratch,
                settings: TestObjectStore.configurationSection(proxied).replacingOccurrences(of: "\n", with: " "))
            try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
            let place = ServePlace(scratch: scratch, databaseURL: databaseURL)
            let server = try await DepotProcess.start(binary: binary, arguments: place.arguments, environment: place.environment)
            defer { server.killIfRunning() }
            let port = try #require(server.port, "depot serve did not start while its bucket refused connections")
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: place.data + "/dev-ca")

            // Started degraded: not ready, saying why, and serving what it built.
            let notReady = try await RawHTTPClient(port: port).request(RawHTTPClient.get("/readyz"))
            #expect(notReady.status == 503)
            #expect(notReady.text.contains("object store"), "\(notReady.text)")
            let purchase = try await PostgresFaultTests.Purchase.redeem(port: port, authority: authority)
            let bundle = try await RawHTTPClient(port: port).request(RawHTTPClient.get(purchase.url))
            #expect(bundle.status == 200, "\(bundle.status) \(bundle.text.prefix(200))")
            #expect(try await store.bundleKeys().isEmpty, "nothing reached the bucket through a refusing proxy")

            // The bucket answers: the bundles built here are sent, and the instance becomes ready without a restart.
            try await proxy.set(.pass)
            var ready = false
            let back = ContinuousClock.now
            while !ready, ContinuousClock.now - back < .seconds(120) {
                ready = try await RawHTTPClient(port: port).request(RawHTTPClient.get("/readyz")).status == 200
                if !ready { try await Task.sleep(for: .milliseconds(250)) }
            }
            #expect(ready, "the instance did not become ready after its bucket came back; its log:\n\(server.logText.suffix(4000))")
            let keys = try await store.bundleKeys()
            #expect(keys.contains("bundles/\(purchase.digest).zip"), "the bucket holds \(keys)")

            // Blackholed while serving: the granted download is served from this disk, a new redeem of content held here
            // is answered, and readiness says the object store cannot be used.
            try await proxy.set(.blackhole)
            let again = try await RawHTTPClient(port: port).request(RawHTTPClient.get(purchase.url))
            #expect(again.status == 200)
            let second = try await PostgresFaultTests.Purchase.redeem(port: port, authority: authority)
            #expect(!second.url.isEmpty)
            var degraded = false
            let cut = ContinuousClock.now
            while !degraded, ContinuousClock.now - cut < .seconds(120) {
                let answer = try await RawHTTPClient(port: port).request(RawHTTPClient.get("/readyz"))
                degraded = answer.status == 503 && answer.text.contains("object store")
                if !degraded { try await Task.sleep(for: .milliseconds(250)) }
            }
            #expect(degraded, "/readyz did not say the object store cannot be used while it was blackholed")
            try await proxy.set(.pass)
            server.kill(SIGTERM)
            _ = await server.waitForExit(timeout: .seconds(60))
        }
        try await store.removeAll()
    }
}
