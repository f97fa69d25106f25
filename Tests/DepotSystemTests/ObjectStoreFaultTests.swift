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
/// at a restart, the instance starts all the same and serves the versions the ledger holds from its own disk; a new
/// version in its content directory is held back (recorded only once its bundle is in the bucket, so that no other
/// instance is told of a bundle it cannot fetch); it says why it is not ready, and once the bucket answers it sends
/// the bundle and records the version, without a restart. Blackholed while serving, downloads go on and readiness
/// says so within the client's bound.
@Suite("A bucket that fails under depot serve", .serialized)
struct ObjectStoreFaultTests {
    @Test(arguments: LedgerEngine.tested)
    func aBucketRefusedAtStartIsFilledOnceItAnswersAndABlackholedOneStopsNoDownload(engine: LedgerEngine) async throws {
        guard let store = try await TestObjectStore.make() else { return }
        guard let endpoint = URLComponents(string: store.settings.endpoint), let upstream = endpoint.port else {
            Issue.record("the test object store's endpoint has no port: \(store.settings.endpoint)")
            return
        }
        guard let proxy = try await FaultProxy.start(upstreamPort: upstream) else { return }
        defer { proxy.stop() }
        try await ServePlace.onEngine(engine) { binary, databaseURL in
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

            // A first start with the bucket up records the content and sends its bundles.
            let first = try await DepotProcess.start(binary: binary, arguments: place.arguments, environment: place.environment)
            defer { first.killIfRunning() }
            let firstPort = try #require(first.port)
            #expect(try await Self.becomesReady(port: firstPort), "\(first.logText.suffix(4000))")
            first.kill(SIGTERM)
            _ = await first.waitForExit(timeout: .seconds(60))
            let sentAtFirst = try await store.bundleKeys()

            // A new version of level1 in the content directory, and the bucket refusing connections at the restart.
            var newer = SharedInstances.smallPacks[0]
            newer.directory = "game/level1-2"
            newer.version = "2.0"
            newer.publishedAt = "2026-04-01T09:00:00Z"
            newer.files["notes.txt"] = Array("Second edition.".utf8)
            try SharedInstances.write([newer], in: scratch)
            try await proxy.set(.refuse)
            let server = try await DepotProcess.start(binary: binary, arguments: place.arguments, environment: place.environment)
            defer { server.killIfRunning() }
            let port = try #require(server.port, "depot serve did not start while its bucket refused connections")
            let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: place.data + "/dev-ca")

            // Started degraded: not ready, saying why, and serving the version the ledger holds from its disk.
            let notReady = try await RawHTTPClient(port: port).request(RawHTTPClient.get("/readyz"))
            #expect(notReady.status == 503)
            #expect(notReady.text.contains("object store"), "\(notReady.text)")
            let purchase = try await PostgresFaultTests.Purchase.redeem(port: port, authority: authority)
            #expect(sentAtFirst.contains("bundles/\(purchase.digest).zip"), "the first version is offered, not the held one")
            let bundle = try await RawHTTPClient(port: port).request(RawHTTPClient.get(purchase.url))
            #expect(bundle.status == 200, "\(bundle.status) \(bundle.text.prefix(200))")
            #expect(try await store.bundleKeys() == sentAtFirst, "nothing reached the bucket through a refusing proxy")

            // The bucket answers: the new bundle is sent, its version recorded, and the instance ready, with no restart.
            try await proxy.set(.pass)
            #expect(try await Self.becomesReady(port: port), "\(server.logText.suffix(4000))")
            var offered = purchase.digest
            let back = ContinuousClock.now
            while offered == purchase.digest, ContinuousClock.now - back < .seconds(120) {
                offered = try await PostgresFaultTests.Purchase.redeem(port: port, authority: authority).digest
                if offered == purchase.digest { try await Task.sleep(for: .milliseconds(250)) }
            }
            #expect(offered != purchase.digest, "the held version was not recorded once its bundle was sent")
            #expect(try await store.bundleKeys().contains("bundles/\(offered).zip"))

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
            server.kill(SIGTERM)
            _ = await server.waitForExit(timeout: .seconds(60))

            // Started again while the bucket is still blackholed: it starts (one bundle tried for a bounded time, the
            // rest held), serves, reports what it holds unsent, and sends it once the bucket answers.
            let third = try await DepotProcess.start(binary: binary, arguments: place.arguments, environment: place.environment)
            defer { third.killIfRunning() }
            let thirdPort = try #require(third.port, "depot serve did not start while its bucket was blackholed")
            let held = try await RawHTTPClient(port: thirdPort).request(RawHTTPClient.get(purchase.url))
            #expect(held.status == 200)
            let metrics = try await RawHTTPClient(port: thirdPort).request(
                RawHTTPClient.get("/metrics", [SharedInstances.adminAuthorization]))
            let unsent = metrics.text.split(separator: "\n").first { $0.hasPrefix("depot_bundles_unsent ") }
            #expect(unsent.map { !$0.hasSuffix(" 0") } == true, "depot_bundles_unsent: \(unsent ?? "absent")")
            try await proxy.set(.pass)
            #expect(try await Self.becomesReady(port: thirdPort), "\(third.logText.suffix(4000))")
            third.kill(SIGTERM)
            _ = await third.waitForExit(timeout: .seconds(60))
        }
        try await store.removeAll()
    }

    /// Whether `/readyz` answers 200 within two minutes.
    static func becomesReady(port: Int) async throws -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(120) {
            if try await RawHTTPClient(port: port).request(RawHTTPClient.get("/readyz")).status == 200 { return true }
            try await Task.sleep(for: .milliseconds(250))
        }
        return false
    }
}
