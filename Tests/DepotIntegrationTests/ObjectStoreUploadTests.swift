@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotObjectStore
@testable import DepotServer
@testable import DepotServices
import DepotTestSupport
import Foundation
import Logging
import Testing

/// tus uploads whose bytes live in the bucket: an upload begun on one instance continues on the other, each PATCH's
/// bytes one object named in the ledger; one writer at a time across instances (the ledger's lease); termination and
/// expiry delete the objects; the parts put together again are the bytes sent.
@Suite("Uploads through an object store")
struct ObjectStoreUploadTests {
    static let tus = ["Tus-Resumable: 1.0.0"]

    /// Creates an upload of `length` bytes through `server`; returns its path.
    static func create(length: Int, on server: LiveServer, key: String) async throws -> String {
        let create = try await Endpoint(port: server.port).request(
            PublisherRequests.request("POST", "/v1/publisher/uploads", key: key, headers: tus + ["Upload-Length: \(length)"]))
        #expect(create.status == 201, "\(create.text)")
        return try UploadServer.path(ofLocation: try #require(create.value("Location")))
    }

    /// PATCHes `bytes` at `offset` through `server`.
    static func patch(
        _ path: String, offset: Int, _ bytes: [UInt8], on server: LiveServer, key: String
    ) async throws -> RawHTTPClient.Response {
        try await TusRequests.patch(path, offset: offset, bytes, port: server.port, key: key)
    }

    /// The keys of the bucket's objects under `uploads/<id>/`.
    static func partObjects(_ id: String, store: TestObjectStore) async throws -> [String] {
        try await ObjectStoreClient(settings: store.settings).listAll(prefix: "uploads/\(id)/").map(\.key)
    }

    @Test func anUploadBegunOnOneInstanceContinuesOnTheOtherAndIsPutTogetherFromItsParts() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        try await ObjectStoreInstancesTests.withTwoInstances(store) { _, a, b, key in
            var random = SeededBytes(seed: 91)
            let bytes = random.bytes(3 << 20)
            let path = try await Self.create(length: bytes.count, on: a, key: key)
            let id = String(path.split(separator: "/").last ?? "")
            let first = try await Self.patch(path, offset: 0, Array(bytes[..<(1 << 20)]), on: a, key: key)
            #expect(first.status == 204, "\(first.text)")
            // B sees A's offset, and takes the rest.
            let head = try await Endpoint(port: b.port).request(
                PublisherRequests.request("HEAD", path, key: key, headers: Self.tus))
            #expect(head.value("Upload-Offset") == "\(1 << 20)")
            let stale = try await Self.patch(path, offset: 0, Array(bytes[..<100]), on: b, key: key)
            #expect(stale.status == 409, "\(stale.text)")
            let rest = try await Self.patch(path, offset: 1 << 20, Array(bytes[(1 << 20)...]), on: b, key: key)
            #expect(rest.status == 204, "\(rest.text)")
            #expect(rest.value("Upload-Offset") == "\(bytes.count)")

            // Two parts, each an object under the upload's prefix, none on either instance's disk.
            let parts = try await b.application.ledger.uploadParts(id: id)
            #expect(parts.map(\.start) == [0, 1 << 20] && parts.last?.end == Int64(bytes.count))
            #expect(Set(try await Self.partObjects(id, store: store)) == Set(parts.map(\.key)))
            for server in [a, b] { #expect(!FileManager.default.fileExists(atPath: server.application.uploadStore.path(id))) }

            // Put together on A for staging: the bytes sent.
            let files = CompleteUploadFiles(
                store: a.application.uploadStore, ledger: a.application.ledger, parts: a.application.uploadParts)
            let assembled = try await files.path(id)
            #expect(FileManager.default.contents(atPath: assembled).map(Array.init) == bytes)

            // Terminated through A: the record and the objects go.
            let terminate = try await Endpoint(port: a.port).request(
                PublisherRequests.request("DELETE", path, key: key, headers: Self.tus))
            #expect(terminate.status == 204, "\(terminate.text)")
            #expect(try await a.application.ledger.upload(id: id) == nil)
            #expect(try await Self.partObjects(id, store: store).isEmpty)
        }
    }

    @Test func oneWriterAtATimeAcrossInstancesAndExpiredUploadsLoseTheirObjects() async throws {
        guard let store = try await TestObjectStore.make() else { return }
        try await ObjectStoreInstancesTests.withTwoInstances(store) { _, a, b, key in
            let path = try await Self.create(length: 1000, on: a, key: key)
            let id = String(path.split(separator: "/").last ?? "")
            #expect(try await Self.patch(path, offset: 0, Array(repeating: 1, count: 400), on: a, key: key).status == 204)
            // Another instance's writer holds the upload: 423, and nothing moves.
            let now = DepotApplication.systemClock()
            #expect(try await b.application.ledger.acquireLease("upload:" + id, owner: "elsewhere", now: now, seconds: 300))
            let locked = try await Self.patch(path, offset: 400, Array(repeating: 2, count: 600), on: b, key: key)
            #expect(locked.status == 423, "\(locked.text)")
            #expect(try await b.application.ledger.upload(id: id)?.offset == 400)
            // Its lease ran out (it was killed): the upload continues.
            #expect(try await b.application.ledger.acquireLease("upload:" + id, owner: "elsewhere", now: now - 600, seconds: 1))
            #expect(try await Self.patch(path, offset: 400, Array(repeating: 2, count: 300), on: b, key: key).status == 204)
            #expect(try await Self.partObjects(id, store: store).count == 2)

            // Expired, it is reaped: records and objects.
            let reaper = UploadReaper(
                ledger: a.application.ledger, store: a.application.uploadStore, parts: a.application.uploadParts,
                clock: { DepotApplication.systemClock() + 30 * 86_400 }, interval: .seconds(3600), logger: Logger(label: "depot-test"))
            #expect(try await reaper.reap() >= 1)
            #expect(try await a.application.ledger.upload(id: id) == nil)
            #expect(try await a.application.ledger.uploadParts(id: id).isEmpty)
            #expect(try await Self.partObjects(id, store: store).isEmpty)
        }
    }
}
