@testable import DepotServerTestSupport
import DepotSettings
import DepotCore
import DepotServer
import DepotTestSupport
import Foundation
import Logging
import Testing

/// Two instances starting at the same time on one data directory (a deployment's first start, or a rolling
/// restart after new content was added): both must build or find every bundle and start.
@Suite("Two instances starting at once on one bundle directory")
struct SharedStoreStartTests {
    @Test func aSecondInstanceOpeningTheStoreDoesNotBreakABuildInProgress() async throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        try SharedInstances.writeConfiguration(in: scratch)
        var random = SeededBytes(seed: 5)
        // Enough data that the first build is still running when the second instance opens the store.
        let text = Array(String(repeating: "Two instances, one store. ", count: 1 << 20).utf8)
        try SharedInstances.write(
            [
                LiveServer.PackSpec(
                    directory: "game/level1", productId: "com.example.level1",
                    files: ["notes.txt": text, "media/tiles.bin": random.bytes(4 << 20)])
            ],
            in: scratch)
        var configuration = try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(
                configPath: scratch.path + "/Config", port: 0, dataDirectory: scratch.path + "/data",
                contentDirectory: scratch.path + "/content"),
            environment: [:])
        // A loaded test machine can hold a PostgreSQL statement past serve's 5 s; these tests do not measure it.
        configuration.ledgerWaitSeconds = max(configuration.ledgerWaitSeconds, 60)
        var logger = Logger(label: "depot-test")
        logger.logLevel = .critical

        let first = Task { try await DepotApplication.prepare(configuration, logger: logger) }
        // Wait until the first instance has written 2 MiB of its bundle under tmp/, then start the second.
        let temporary = scratch.path + "/data/bundles/tmp"
        func written() -> Int {
            partialFiles(under: temporary).compactMap { name in
                (try? FileManager.default.attributesOfItem(atPath: temporary + "/" + name))?[.size] as? Int
            }.reduce(0, +)
        }
        let started = ContinuousClock.now
        while written() < 2 << 20, ContinuousClock.now - started < .seconds(20) {
            try await Task.sleep(for: .milliseconds(1))
        }
        let second = try await DepotApplication.prepare(configuration, logger: logger)
        #expect(second.catalog.versions.count == 1)
        let firstResult = await first.result

        // Each instance builds in a workspace of its own, which another instance opening the store leaves alone.
        let application = try firstResult.get()
        #expect(application.catalog.versions.map(\.digest) == second.catalog.versions.map(\.digest))
    }
}
