@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Nothing half-applies (issue 8, item 8) on the real binaries: a `depot dev stage` killed with SIGKILL while
/// it bundles records nothing and leaves the previous version serving; a `depot serve` killed right after it
/// was asked to publish comes back with the catalog consistent (exactly one version current, the one the
/// lists offer and the store serves); one killed while it builds deltas in the background builds them after
/// the restart.
@Suite("kill -9 while staging or publishing", .serialized)
struct PublishKillNineTests {
    static let level1 = "com.example.level1"

    @Test(arguments: LedgerEngine.tested)
    func killNineLeavesThePreviousVersionServingAndTheCatalogConsistent(engine: LedgerEngine) async throws {
        try await ServePlace.onEngine(engine) { binary, databaseURL in
            try await run(binary: binary, engine: engine, databaseURL: databaseURL)
        }
    }

    private func run(binary: String, engine: LedgerEngine, databaseURL: String?) async throws {
        let scratch = try ScratchDirectory("publishKillNine-\(engine.rawValue)")
        defer { scratch.remove() }
        try SharedInstances.writeConfiguration(in: scratch)
        try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
        let place = ServePlace(scratch: scratch, databaseURL: databaseURL)
        let (data, arguments, environment, ledgerURL) = (place.data, place.arguments, place.environment, place.ledgerURL)
        let depot = DepotCommand(scratch: scratch, databaseURL: databaseURL)

        var server = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
        defer { server.killIfRunning() }
        let key = try await depot.makeKey()
        let initial = try await RawHTTPClient(port: try #require(server.port)).request(RawHTTPClient.get("/v1/products"))
        let originalDigest = try #require(try JSONAnswer(initial)["products.0.contents.0.digest"]?.string)

        // 1. SIGKILL while `depot dev stage` writes the bundle.
        // 32 MiB of letters that deflate, so the test spends its time bundling, deflating.
        let letters = await DeflatingLetters.make(count: 32 << 20)
        #expect(letters.count == 32 << 20)
        let directory = try PublisherRequests.writePack(
            in: scratch, at: "uploads/level1-2.0", productId: Self.level1, version: "2.0",
            files: ["media/big.txt": letters, "notes.txt": Array("Big second edition.".utf8)])
        let stage = Process()
        stage.executableURL = URL(fileURLWithPath: binary)
        stage.arguments = ["dev", "stage", directory, "--product", Self.level1] + depot.place
        stage.standardOutput = FileHandle.nullDevice
        stage.standardError = FileHandle.nullDevice
        let stageExit = try ProcessExit.run(stage)
        let temporary = data + "/bundles/tmp"
        @Sendable func partialBytes() -> Int {
            partialFiles(under: temporary).compactMap {
                (try? FileManager.default.attributesOfItem(atPath: temporary + "/" + $0))?[.size] as? Int
            }.reduce(0, +)
        }
        let killed = await ConditionKill.kill(pid: stage.processIdentifier, within: .seconds(120)) {
            partialBytes() >= 256 << 10
        } unless: {
            stageExit.hasEnded
        }
        try #require(killed, "depot dev stage finished before it could be killed mid-bundle")
        #expect(await stageExit.wait().bySignal)
        try await LedgerReader.with(ledgerURL) { ledger in
            let versions = try await ledger.catalogVersions(productId: Self.level1).map(\.content.version)
            #expect(versions == ["1.0"])
        }
        let afterKill = try await RawHTTPClient(port: try #require(server.port)).request(RawHTTPClient.get("/v1/products"))
        #expect(afterKill.value("ETag") == initial.value("ETag"))

        // Staging again completes; the staged version is not offered.
        let digest = try await depot.stage(directory, product: Self.level1)
        let staged = try await RawHTTPClient(port: try #require(server.port)).request(RawHTTPClient.get("/v1/products"))
        #expect(staged.value("ETag") == initial.value("ETag"))

        // 2. SIGKILL right after the publish request was sent: after a restart, one version is current, consistently.
        let client = try RawHTTPClient(port: try #require(server.port))
        try await client.send(PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/2.0/publish", key: key))
        server.kill(SIGKILL)
        _ = await server.waitForExit()
        server = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
        let current = try await Self.checkConsistent(
            server: server, ledgerURL: ledgerURL, depot: depot, candidates: [originalDigest, digest])

        // 3. Publish (again, if the kill came first), and SIGKILL as soon as it is answered, while the delta
        //    towards 2.0 is built in the background: after the restart 2.0 is served and the delta gets built.
        if current != digest {
            let response = try await RawHTTPClient(port: try #require(server.port)).request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/2.0/publish", key: key))
            #expect(response.status == 200, "\(response.text)")
        }
        server.kill(SIGKILL)
        _ = await server.waitForExit()
        server = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
        #expect(try await Self.checkConsistent(server: server, ledgerURL: ledgerURL, depot: depot, candidates: [digest]) == digest)
        try await eventually("the delta 1.0 -> 2.0 after the restart", within: 180) {
            try await LedgerReader.with(ledgerURL) { ledger in
                try await ledger.catalogSnapshot().deltas.contains { $0.baseVersion == "1.0" && $0.targetVersion == "2.0" }
            }
        }
        // The killed stager's half-written bundle went with its workspace when the server reopened the store.
        #expect(partialFiles(under: temporary).isEmpty, "\(partialFiles(under: temporary))")
        server.kill(SIGTERM)
        _ = await server.waitForExit(timeout: .seconds(60))
    }

    /// Checks that exactly one version of level1 is published, the others superseded or staged as the publish
    /// rule allows, that the lists offer it and the store serves its bytes; returns its digest.
    static func checkConsistent(
        server: DepotProcess, ledgerURL: String, depot: DepotCommand, candidates: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let versions = try await LedgerReader.with(ledgerURL) { ledger in try await ledger.catalogVersions(productId: Self.level1) }
        let published = versions.filter { $0.state == .published }
        try #require(published.count == 1, "\(versions)", sourceLocation: sourceLocation)
        let current = published[0].content.digest.hex
        #expect(candidates.contains(current), sourceLocation: sourceLocation)
        let states = Set(versions.map(\.state))
        #expect(states.isSubset(of: [.published, .superseded, .staged]), sourceLocation: sourceLocation)
        let port = try #require(server.port)
        let list = try await RawHTTPClient(port: port).request(RawHTTPClient.get("/v1/products"))
        #expect(try JSONAnswer(list)["products.0.contents.0.digest"]?.string == current, "\(list.text)", sourceLocation: sourceLocation)
        let bundle = try await RawHTTPClient(port: port).request(
            RawHTTPClient.get("/v1/bundles/\(current)?grant=\(try await depot.grant(current))"))
        #expect(bundle.status == 200, sourceLocation: sourceLocation)
        #expect(SharedInstances.hexSHA256(bundle.body) == current, sourceLocation: sourceLocation)
        return current
    }
}
