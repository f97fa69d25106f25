@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotObjectStore
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two `depot serve` processes sharing one PostgreSQL ledger and one bucket, and no directory: a tus upload begun on
/// the first is cut by a kill -9 of it and finished on the second; the second stages and publishes the pack; the
/// first, restarted on its own data directory with a bounded cache, serves the bundle it never built, fetched from the
/// bucket, to curl whole, by range and resumed; the bucket holds the bundle once, under its digest.
@Suite("Two depot serve processes sharing a bucket", .serialized)
struct ObjectStoreServeProcessesTests {
    static let level1 = "com.example.level1"

    @Test func anUploadCutByAKillNineFinishesOnTheOtherInstanceWhichPublishesWhatTheFirstThenServes() async throws {
        guard let store = try await TestObjectStore.make(), let tar = ExternalTool.require("tar"),
            let curl = ExternalTool.require("curl")
        else { return }
        try await ServePlace.onEngine(.postgres) { binary, databaseURL in
            try await run(binary: binary, tar: tar, curl: curl, store: store, databaseURL: try #require(databaseURL))
        }
        try await store.removeAll()
    }

    private func run(binary: String, tar: String, curl: String, store: TestObjectStore, databaseURL: String) async throws {
        let scratch = try ScratchDirectory("objectStoreProcesses")
        defer { scratch.remove() }
        try SharedInstances.writeConfiguration(
            in: scratch,
            settings: TestObjectStore.configurationSection(store.settings, localCacheBytes: 64 << 20)
                .replacingOccurrences(of: "\n", with: " "))
        try SharedInstances.write(SharedInstances.smallPacks, in: scratch)
        func arguments(_ name: String, content: String) -> [String] {
            ["--config", scratch.path + "/Config", "--data-dir", scratch.path + "/" + name, "--content-dir", content]
        }
        let environment = ["DEPOT_DATABASE_URL": databaseURL]
        let argumentsA = arguments("data-a", content: scratch.path + "/content")
        // B starts with no content directory of its own: everything it serves comes from the ledger and the bucket.
        let argumentsB = arguments("data-b", content: scratch.path + "/no-content")
        var a = try await DepotProcess.start(binary: binary, arguments: argumentsA, environment: environment)
        defer { a.killIfRunning() }
        let b = try await DepotProcess.start(binary: binary, arguments: argumentsB, environment: environment)
        defer { b.killIfRunning() }
        let (portA, portB) = (try #require(a.port), try #require(b.port))
        let key = try await DepotCommand(scratch: scratch, databaseURL: databaseURL).makeKey()

        // A tar of a pack with 6 MiB of randomness.
        let noise = try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: 6 << 20)
        _ = try PublisherRequests.writePack(
            in: scratch, at: "packs/level1-2.0", productId: Self.level1, version: "2.0",
            files: ["media/big.bin": Array(noise), "notes.txt": Array("Second edition.".utf8)])
        let packed = try await ExternalTool.run(tar, ["-cf", "level1-2.0.tar", "level1-2.0"], in: scratch.path + "/packs")
        #expect(packed.status == 0, "\(packed.error)")
        let archive = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/packs/level1-2.0.tar")))
        let create = try await RawHTTPClient(port: portA).request(
            PublisherRequests.request(
                "POST", "/v1/publisher/uploads", key: key, headers: ["Tus-Resumable: 1.0.0", "Upload-Length: \(archive.count)"]))
        #expect(create.status == 201, "\(create.text)")
        let location = try UploadServer.path(ofLocation: try #require(create.value("Location")))
        let id = String(location.split(separator: "/").last ?? "")
        let first = try await TusRequests.patch(location, offset: 0, Array(archive[..<(2 << 20)]), port: portA, key: key)
        #expect(first.status == 204, "\(first.text)")

        // A second PATCH to A is cut by a kill -9 halfway through its body.
        let cut = try RawHTTPClient(port: portA)
        try await cut.send(
            TusRequests.patchHead(location, offset: 2 << 20, length: archive.count - (2 << 20), key: key))
        try await cut.send(bytes: Array(archive[(2 << 20)..<(3 << 20)]))
        try await Task.sleep(for: .milliseconds(200))
        a.kill(SIGKILL)
        _ = await a.waitForExit()

        // B sees what A counted, and finishes the upload once A's lease ran out (423 until then).
        let head = try await RawHTTPClient(port: portB).request(
            PublisherRequests.request("HEAD", location, key: key, headers: ["Tus-Resumable: 1.0.0"]), head: true)
        let offset = try #require(head.value("Upload-Offset").flatMap { Int($0) })
        #expect(offset == 2 << 20)
        try await eventually("B takes the rest of the upload", within: 180) {
            // While A's lease holds, B refuses at once and may close before the body is sent: tried again.
            guard let rest = try? await TusRequests.patch(location, offset: offset, Array(archive[offset...]), port: portB, key: key)
            else { return false }
            #expect(rest.status == 204 || rest.status == 423, "\(rest.text)")
            return rest.status == 204
        }

        // B stages and publishes it.
        let body = #"{"upload": "\#(id)", "version": "2.0", "sha256": "\#(SharedInstances.hexSHA256(archive))"}"#
        let post = try await RawHTTPClient(port: portB).request(
            PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions", key: key, json: body))
        #expect(post.status == 202, "\(post.text)")
        var digest: BundleDigest?
        try await eventually("B stages 2.0", within: 300) {
            digest = try await LedgerReader.with(databaseURL) { ledger in
                try await ledger.catalogVersions(productId: Self.level1).first { $0.content.version == "2.0" && $0.state == .staged }?
                    .content.digest
            }
            return digest != nil
        }
        let staged = try #require(digest)
        let publish = try await RawHTTPClient(port: portB).request(
            PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/2.0/publish", key: key))
        #expect(publish.status == 200, "\(publish.text)")

        // A, restarted on its own data directory, serves the bundle it never built, from the bucket.
        a = try await DepotProcess.start(binary: binary, arguments: argumentsA, environment: environment)
        let portA2 = try #require(a.port)
        #expect(!FileManager.default.fileExists(atPath: "\(scratch.path)/data-a/bundles/\(staged.shard)/\(staged.hex).zip"))
        let grant = try await DepotCommand(scratch: scratch, databaseURL: databaseURL).grant(staged.hex)
        let url = "http://127.0.0.1:\(portA2)/v1/bundles/\(staged.hex)?grant=\(grant)"
        let whole = scratch.path + "/whole.zip"
        let fetched = try await ExternalTool.run(curl, ["-sS", "-f", "-o", whole, url])
        #expect(fetched.status == 0, "\(fetched.error)")
        let wholeBytes = Array(try Data(contentsOf: URL(fileURLWithPath: whole)))
        #expect(SharedInstances.hexSHA256(wholeBytes) == staged.hex)
        let range = try await ExternalTool.run(curl, ["-sS", "-f", "-r", "1000-1999", "-o", scratch.path + "/range.bin", url])
        #expect(range.status == 0, "\(range.error)")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/range.bin"))) == Array(wholeBytes[1000...1999]))
        // A download cut after its first half, resumed with curl -C -.
        let partial = scratch.path + "/resumed.zip"
        try Data(wholeBytes[..<(wholeBytes.count / 2)]).write(to: URL(fileURLWithPath: partial))
        let resumed = try await ExternalTool.run(curl, ["-sS", "-f", "-C", "-", "-o", partial, url])
        #expect(resumed.status == 0, "\(resumed.error)")
        #expect(SharedInstances.hexSHA256(Array(try Data(contentsOf: URL(fileURLWithPath: partial)))) == staged.hex)

        // The bucket holds the bundle once, under its digest; the upload's parts stay until it expires or is deleted.
        let objects = try await ObjectStoreClient(settings: store.settings).listAll()
        #expect(objects.filter { $0.key == "bundles/\(staged.hex).zip" }.count == 1)
        #expect(objects.contains { $0.key.hasPrefix("uploads/\(id)/") })
        for server in [a, b] {
            server.kill(SIGTERM)
            _ = await server.waitForExit(timeout: .seconds(60))
        }
    }
}
