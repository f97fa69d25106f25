@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Nothing half-applies when `depot serve` is killed with SIGKILL while it unpacks or bundles a version from
/// an upload: after a restart the previous version still serves, nothing was staged, the job is failed with
/// a reason saying its server stopped, its scratch folder goes, and posting the version again stages it.
@Suite("kill -9 while a version is made from an upload", .serialized)
struct UploadVersionKillNineTests {
    static let level1 = "com.example.level1"

    @Test(arguments: LedgerEngine.tested)
    func killNineDuringAVersionJobStagesNothingAndFailsTheJob(engine: LedgerEngine) async throws {
        guard let tar = ExternalTool.require("tar") else { return }
        try await ServePlace.onEngine(engine) { binary, databaseURL in
            try await run(binary: binary, tar: tar, engine: engine, databaseURL: databaseURL)
        }
    }

    private func run(binary: String, tar: String, engine: LedgerEngine, databaseURL: String?) async throws {
        let scratch = try ScratchDirectory("uploadKillNine-\(engine.rawValue)")
        defer { scratch.remove() }
        try SharedInstances.writeConfiguration(in: scratch)
        // A short staleness bound, so the restarted server fails the orphaned job soon.
        let configPath = scratch.path + "/Config/depot.json"
        var config = try String(contentsOfFile: configPath, encoding: .utf8)
        config = "{\"catalog\": {\"versionJobStaleSeconds\": 2}, " + config.dropFirst()
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
        let place = ServePlace(scratch: scratch, databaseURL: databaseURL)
        let (data, arguments, environment, ledgerURL) = (place.data, place.arguments, place.environment, place.ledgerURL)
        let depot = DepotCommand(scratch: scratch, databaseURL: databaseURL)

        var server = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
        defer { server.killIfRunning() }
        let key = try await depot.makeKey()
        let initial = try await RawHTTPClient(port: try #require(server.port)).request(RawHTTPClient.get("/v1/products"))

        // A tar of a pack with 48 MiB of letters that deflate: the job spends its time hashing, unpacking and
        // bundling, and the bundling deflates, which takes longest.
        let letters = await DeflatingLetters.make(count: 48 << 20)
        #expect(letters.count == 48 << 20)
        _ = try PublisherRequests.writePack(
            in: scratch, at: "packs/level1-2.0", productId: Self.level1, version: "2.0",
            files: ["media/big.txt": letters, "notes.txt": Array("Big second edition.".utf8)])
        let packed = try await ExternalTool.run(tar, ["-cf", "level1-2.0.tar", "level1-2.0"], in: scratch.path + "/packs")
        #expect(packed.status == 0, "\(packed.error)")
        let archive = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/packs/level1-2.0.tar")))
        let upload = try await Self.upload(archive, port: try #require(server.port), key: key)
        let body = #"{"upload": "\#(upload)", "version": "2.0", "sha256": "\#(SharedInstances.hexSHA256(archive))"}"#

        // SIGKILL once the job's scratch folder exists (it is unpacking or bundling).
        let post = try await RawHTTPClient(port: try #require(server.port)).request(
            PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions", key: key, json: body))
        #expect(post.status == 202, "\(post.text)")
        let job = try #require(try JSONAnswer(post)["version.job"]?.string)
        let folder = data + "/scratch/" + job
        let killed = await ConditionKill.kill(pid: server.pid, within: .seconds(300)) {
            FileManager.default.fileExists(atPath: folder)
        }
        // Killed first, read after: the state the job was in when its server died stays in the ledger.
        server.kill(SIGKILL)
        _ = await server.waitForExit()
        #expect(killed, "the job's scratch folder \(folder) never appeared")
        let killedWhile = try await LedgerReader.with(ledgerURL) { ledger in try await ledger.versionJob(id: job)?.state }
        try #require(
            killedWhile == .validating || killedWhile == .bundling, "the job ended before the kill: \(String(describing: killedWhile))")

        server = try await DepotProcess.start(binary: binary, arguments: arguments, environment: environment)
        let port = try #require(server.port)
        // The previous version serves; nothing was staged; the job fails with its reason; its scratch goes.
        let after = try await RawHTTPClient(port: port).request(RawHTTPClient.get("/v1/products"))
        #expect(after.value("ETag") == initial.value("ETag"))
        try await eventually("the orphaned job to fail", within: 180) {
            try await LedgerReader.with(ledgerURL) { ledger in try await ledger.versionJob(id: job)?.state == .failed }
        }
        let failed = try await LedgerReader.with(ledgerURL) { ledger in try await ledger.versionJob(id: job) }
        #expect(failed?.failureReason?.contains("stopped") == true, "\(String(describing: failed))")
        let versions = try await LedgerReader.with(ledgerURL) { ledger in
            try await ledger.catalogVersions(productId: Self.level1).map(\.content.version)
        }
        #expect(versions == ["1.0"])
        try await eventually("the scratch folder to go", within: 180) {
            !FileManager.default.fileExists(atPath: folder)
        }

        // Posting the version again stages it.
        let again = try await RawHTTPClient(port: port).request(
            PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions", key: key, json: body))
        #expect(again.status == 202, "\(again.text)")
        try await eventually("2.0 to be staged", within: 300) {
            try await LedgerReader.with(ledgerURL) { ledger in
                try await ledger.catalogVersions(productId: Self.level1).contains { $0.content.version == "2.0" && $0.state == .staged }
            }
        }
        server.kill(SIGTERM)
        _ = await server.waitForExit(timeout: .seconds(60))
    }

    /// Uploads `bytes` with tus in one PATCH; returns the upload's id.
    static func upload(_ bytes: [UInt8], port: Int, key: String) async throws -> String {
        let create = try await RawHTTPClient(port: port).request(
            PublisherRequests.request(
                "POST", "/v1/publisher/uploads", key: key, headers: ["Tus-Resumable: 1.0.0", "Upload-Length: \(bytes.count)"]))
        #expect(create.status == 201, "\(create.text)")
        let location = try UploadServer.path(ofLocation: try #require(create.value("Location")))
        let client = try RawHTTPClient(port: port)
        try await client.send(
            "PATCH \(location) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\nTus-Resumable: 1.0.0\r\n"
                + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: \(bytes.count)\r\n\r\n")
        try await client.send(bytes: bytes)
        let patch = try await client.readResponse()
        #expect(patch.status == 204, "\(patch.text)")
        return String(location.split(separator: "/").last ?? "")
    }
}
