@testable import DepotServerTestSupport
import DepotAPI
import DepotCore
import DepotHTTP
import DepotLedger
@testable import DepotOrigin
import DepotServer
import DepotServices
import DepotTestSupport
import Foundation
import Testing

/// Versions: staged from a pack directory, listed with their state, published, rolled back, deleted; the
/// lists, the bundle index and older grants follow, and deltas towards a published version are built in
/// the background.
@Suite("Publisher versions")
struct PublisherVersionTests {
    static let level1 = "com.example.level1"

    @Test func stagePublishRollBackAndDelete() async throws {
        try await LiveServer.with { server in
            let client = Endpoint(port: server.port)
            let (key, _) = try await PublisherRequests.makeKey(server.application.ledger)
            let original = try server.version(Self.level1)
            let oldGrant = server.grant(original.digest.hex)
            let listBefore = try await client.request(RawHTTPClient.get("/v1/products"))

            var random = SeededBytes(seed: 5)
            let directory = try PublisherRequests.writePack(
                in: server.scratch, at: "uploads/level1-1.1", productId: Self.level1, version: "1.1",
                publishedAt: "2026-04-01T09:00:00Z",
                files: ["maps/cave.json": Array("{\"tiles\": [[1,1,1,0]]}".utf8), "media/new.bin": random.bytes(200_000)])
            let staged = try await server.application.stager.stage(
                directory: directory, VersionStager.Request(productId: Self.level1, version: "1.1"))
            #expect(staged.state == .staged)
            // Staging the same pack again is the same record.
            #expect(try await server.application.stager.stage(directory: directory, .init(productId: Self.level1)) == staged)

            // Staged: listed for the publisher, not offered to apps, not served.
            let versions = try JSONAnswer(
                try await client.request(PublisherRequests.request("GET", "/v1/publisher/products/\(Self.level1)/versions", key: key)))
            let listed = versions["versions"]?.array.map {
                ($0["version"]?.string ?? "", $0["state"]?.string ?? "", $0["current"]?.value as? Bool)
            }
            #expect(listed?.map(\.0) == ["1.0", "1.1"])
            #expect(listed?.map(\.1) == ["published", "staged"])
            #expect(listed?.map(\.2) == [true, false])
            #expect(server.application.index.bundle(digest: staged.content.digest) == nil)
            let stillOld = try await client.request(RawHTTPClient.get("/v1/products"))
            #expect(stillOld.value("ETag") == listBefore.value("ETag"))

            // Publish: offered and served at once, with new list validators.
            let publish = try await client.request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/1.1/publish", key: key))
            #expect(publish.status == 200, "\(publish.text)")
            let published = try JSONAnswer(publish)
            #expect(published["version.state"]?.string == "published")
            #expect(published["version.current"]?.value as? Bool == true)
            #expect(published["rollback"]?.value as? Bool == false)
            let listAfter = try await client.request(RawHTTPClient.get("/v1/products"))
            #expect(listAfter.value("ETag") != listBefore.value("ETag"))
            #expect(listAfter.text.contains(staged.content.digest.hex))
            #expect(!listAfter.text.contains(original.digest.hex))
            #expect(try server.version(Self.level1).version == "1.1")
            let lastModified = try #require(listAfter.value("Last-Modified"))
            #expect(HTTPDate.parse(lastModified).map { $0 >= DepotApplication.systemClock() - 120 } == true, "\(lastModified)")

            // The grant handed out for 1.0 still opens its bundle.
            let old = try await client.request(RawHTTPClient.get("/v1/bundles/\(original.digest)?grant=\(oldGrant)"))
            #expect(old.status == 200)
            #expect(SharedInstances.hexSHA256(old.body) == original.digest.hex)

            // The delta 1.0 -> 1.1 is built in the background and then offered.
            try await eventually("the delta towards 1.1") {
                server.application.catalog.delta(productId: Self.level1, contentId: Self.level1, from: "1.0", to: "1.1") != nil
            }

            // A published version is never deleted.
            let deleteCurrent = try await client.request(
                PublisherRequests.request("DELETE", "/v1/publisher/products/\(Self.level1)/versions/1.0", key: key))
            #expect(deleteCurrent.status == 409)
            #expect(PublisherRequests.errorCode(deleteCurrent) == "version-was-published")

            // Roll back to 1.0.
            let back = try await client.request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/1.0/publish", key: key))
            #expect(back.status == 200, "\(back.text)")
            #expect(try JSONAnswer(back)["rollback"]?.value as? Bool == true)
            let rolledBack = try await client.request(RawHTTPClient.get("/v1/products"))
            #expect(rolledBack.text.contains(original.digest.hex))
            #expect(rolledBack.value("ETag") != listAfter.value("ETag"))
            let states = try await server.application.ledger.catalogVersions(productId: Self.level1).map {
                "\($0.content.version) \($0.state.rawValue)"
            }
            #expect(states == ["1.0 published", "1.1 superseded"])

            // A staged version that was never published is deleted; unknown ones are 404.
            let other = try PublisherRequests.writePack(
                in: server.scratch, at: "uploads/level1-1.2", productId: Self.level1, version: "1.2",
                files: ["maps/cave.json": Array("{}".utf8)])
            _ = try await server.application.stager.stage(directory: other, .init(productId: Self.level1, version: "1.2"))
            let delete = try await client.request(
                PublisherRequests.request("DELETE", "/v1/publisher/products/\(Self.level1)/versions/1.2", key: key))
            #expect(delete.status == 204)
            for (method, suffix) in [("DELETE", "1.2"), ("POST", "1.2/publish"), ("POST", "9.9/publish")] {
                let response = try await client.request(
                    PublisherRequests.request(method, "/v1/publisher/products/\(Self.level1)/versions/\(suffix)", key: key))
                #expect(response.status == 404, "\(method) \(suffix): \(response.text)")
            }
            let unknownProduct = try await client.request(
                PublisherRequests.request("POST", "/v1/publisher/products/com.example.none/versions/1.0/publish", key: key))
            #expect(unknownProduct.status == 404)
            #expect(PublisherRequests.errorCode(unknownProduct) == "unknown-product")
        }
    }

    @Test func theStagerRefusesMismatchedAndChangedPacks() async throws {
        try await LiveServer.with { server in
            let stager = server.application.stager
            let revision = try await server.application.ledger.catalogRevision()
            let changed = try PublisherRequests.writePack(
                in: server.scratch, at: "uploads/changed", productId: Self.level1, version: "1.0",
                files: ["maps/cave.json": Array("{\"changed\": true}".utf8)])
            let versionExists = await Self.refusal(stager, changed, .init(productId: Self.level1))
            #expect(versionExists?.code == .versionExists)
            #expect(versionExists?.message.contains("com.example.level1") == true && versionExists?.message.contains("1.0") == true)
            let cases: [(VersionStager.Request, StageError.Code)] = [
                (.init(productId: "com.example.monthly"), .packMismatch),
                (.init(productId: Self.level1, version: "2.0"), .packMismatch),
                (.init(productId: Self.level1, contentId: "other"), .packMismatch),
            ]
            for (request, code) in cases {
                let refusal = await Self.refusal(stager, changed, request)
                #expect(refusal?.code == code, "\(String(describing: refusal))")
            }
            let unknown = try PublisherRequests.writePack(
                in: server.scratch, at: "uploads/unknown", productId: "com.example.none", version: "1.0", files: ["a.txt": [1]])
            #expect(await Self.refusal(stager, unknown, .init(productId: "com.example.none"))?.code == .unknownProduct)
            let broken = server.scratch.path + "/uploads/broken"
            try server.scratch.write("uploads/broken/pack.json", "{\"productId\": 3}")
            let invalid = await Self.refusal(stager, broken, .init(productId: Self.level1))
            #expect(invalid?.code == .invalidPack)
            #expect(invalid?.depotError.status == 422)
            #expect(try await server.application.ledger.catalogRevision() == revision)
        }
    }

    @Test func aKeysScopeBoundsThePacksContentId() async throws {
        try await LiveServer.with { server in
            let stager = server.application.stager
            let revision = try await server.application.ledger.catalogRevision()
            let studioA = AuthenticatedPublisher(keyId: "a", name: "studio-a", productPrefixes: ["com.example."])
            let squat = try PublisherRequests.writePack(
                in: server.scratch, at: "uploads/squat", productId: Self.level1, contentId: "com.studiob.app", version: "2.0",
                files: ["a.txt": [1]])
            let refusal = await Self.refusal(stager, squat, .init(productId: Self.level1, publisher: studioA))
            #expect(refusal?.code == .contentOutOfScope, "\(String(describing: refusal))")
            #expect(refusal?.depotError.status == 403)
            #expect(try await server.application.ledger.catalogRevision() == revision)

            // A key for every product, and the operator's own staging, may name any content id.
            let everything = AuthenticatedPublisher(keyId: "b", name: "studio-b", productPrefixes: [])
            #expect(await Self.refusal(stager, squat, .init(productId: Self.level1, publisher: everything)) == nil)
        }
    }

    /// The error staging fails with, or nil when it stages.
    static func refusal(_ stager: VersionStager, _ directory: String, _ request: VersionStager.Request) async -> StageError? {
        do {
            _ = try await stager.stage(directory: directory, request)
            return nil
        } catch {
            return error
        }
    }
}
