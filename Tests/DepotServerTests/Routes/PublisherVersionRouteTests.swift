@testable import DepotServer
@testable import DepotServerTestSupport
import DepotTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// `PublisherVersionRoutes` through the router without a socket: a complete upload of the caller's becomes a
/// version job (202), and every field, scope and upload state the route judges at once has its documented answer.
@Suite("Publisher version route without a socket")
struct PublisherVersionRouteTests {
    /// The upload clock the router is given, moved by the test.
    final class UploadClock: Sendable {
        let now = Atomic<Int64>(DepotApplication.systemClock())
    }

    /// Runs `body` with a router over the standard packs, a publisher key of `studio` for `prefixes`, and the
    /// router's upload clock.
    static func withRouter(
        prefixes: [String] = [], _ name: String = #function,
        _ body: @Sendable (DepotApplication, any TestClientProtocol, String, UploadClock) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        let application = try await LiveServer.prepared(in: scratch, packs: RouterRequests.packs)
        let clock = UploadClock()
        let (router, _, _) = application.makeRouter(uploadClock: { clock.now.load(ordering: .relaxed) })
        do {
            let key = try await PublisherRequests.makeKey(application.ledger, prefixes: prefixes).key
            try await Application(router: router).test(.router) { client in try await body(application, client, key, clock) }
        } catch {
            await application.close()
            throw error
        }
        await application.close()
    }

    /// Makes an upload of `length` bytes with `key` and sends `sent` of them; its id.
    static func upload(_ client: any TestClientProtocol, key: String, length: Int, sent: Int) async throws -> String {
        let tus = HTTPField.Name("Tus-Resumable")!
        let created = try await client.execute(
            uri: "/v1/publisher/uploads", method: .post,
            headers: [.authorization: "Bearer \(key)", tus: "1.0.0", HTTPField.Name("Upload-Length")!: String(length)])
        #expect(created.status == .created, "\(String(buffer: created.body))")
        let location = try #require(created.headers[.location])
        let id = String(try #require(location.split(separator: "/").last))
        if sent > 0 {
            var seeded = SeededBytes(seed: 7)
            let appended = try await client.execute(
                uri: "/v1/publisher/uploads/\(id)", method: .patch,
                headers: [
                    .authorization: "Bearer \(key)", tus: "1.0.0", HTTPField.Name("Upload-Offset")!: "0",
                    .contentType: "application/offset+octet-stream",
                ],
                body: ByteBuffer(bytes: seeded.bytes(sent)))
            #expect(appended.status == .noContent, "\(String(buffer: appended.body))")
        }
        return id
    }

    /// POSTs a version request for level 1 with `fields` (JSON members) as `key`.
    static func submit(
        _ client: any TestClientProtocol, key: String?, product: String = "com.example.level1", _ fields: String
    ) async throws -> TestResponse {
        let headers: HTTPFields = key.map { [.authorization: "Bearer \($0)"] } ?? [:]
        return try await RouterRequests.post(client, "/v1/publisher/products/\(product)/versions", "{\(fields)}", headers: headers)
    }

    static let sha256 = String(repeating: "ab", count: 32)

    @Test func aCompleteUploadBecomesAVersionJob() async throws {
        try await Self.withRouter { _, client, key, _ in
            let upload = try await Self.upload(client, key: key, length: 100, sent: 100)
            let fields = "\"upload\": \"\(upload)\", \"version\": \"9.0\", \"sha256\": \"\(Self.sha256.uppercased())\""
            let accepted = try await Self.submit(client, key: key, fields + ", \"publishedAt\": \"2026-03-01T09:00:00Z\"")
            try RouterRequests.expectJSON(accepted, .accepted)
            #expect(accepted.headers[.location] == "/v1/publisher/products/com.example.level1/versions")
            let version = try #require(try RoutedRequestTests.object(accepted)["version"] as? [String: Any])
            #expect(version["version"] as? String == "9.0")
            #expect(version["state"] as? String == "received")
            #expect(version["productId"] as? String == "com.example.level1")
        }
    }

    @Test func eachMalformedFieldIsRefusedUnderItsOwnCode() async throws {
        try await Self.withRouter { _, client, key, _ in
            let upload = String(repeating: "a", count: 32)
            let good = (upload: "\"upload\": \"\(upload)\"", version: "\"version\": \"1.0\"", sha: "\"sha256\": \"\(Self.sha256)\"")
            for (fields, code) in [
                ("\(good.version), \(good.sha)", "invalid-upload-id"),
                ("\"upload\": \"xyz\", \(good.version), \(good.sha)", "invalid-upload-id"),
                ("\(good.upload), \(good.sha)", "invalid-version"),
                ("\(good.upload), \"version\": \"a b\", \(good.sha)", "invalid-version"),
                ("\(good.upload), \(good.version)", "invalid-sha256"),
                ("\(good.upload), \(good.version), \"sha256\": \"\(String(repeating: "g", count: 64))\"", "invalid-sha256"),
                ("\(good.upload), \(good.version), \(good.sha), \"contentId\": \"../x\"", "invalid-content-id"),
                ("\(good.upload), \(good.version), \(good.sha), \"publishedAt\": \"yesterday\"", "invalid-published-at"),
                ("\(good.upload), \"version\": 7, \(good.sha)", "bad-request"),
            ] {
                let refused = try await Self.submit(client, key: key, fields)
                try RouterRequests.expectJSON(refused, .badRequest, code: code)
            }
            let unread = try await RouterRequests.post(
                client, "/v1/publisher/products/com.example.level1/versions", "{\"upload\": ",
                headers: [.authorization: "Bearer \(key)"])
            try RouterRequests.expectJSON(unread, .badRequest, code: "bad-request")
        }
    }

    @Test func theKeyAndTheUploadAreJudgedBeforeAJobIsMade() async throws {
        try await Self.withRouter { application, client, key, clock in
            let fields = { (upload: String) in
                "\"upload\": \"\(upload)\", \"version\": \"2.0\", \"sha256\": \"\(Self.sha256)\""
            }
            let unknown = String(repeating: "0", count: 32)
            try RouterRequests.expectJSON(
                try await Self.submit(client, key: nil, fields(unknown)), .unauthorized, code: "publisher-key-required")
            try RouterRequests.expectJSON(
                try await Self.submit(client, key: "dpk_" + String(repeating: "x", count: 43), fields(unknown)), .unauthorized)
            try RouterRequests.expectJSON(
                try await Self.submit(client, key: key, product: "com.example.nothing", fields(unknown)), .notFound,
                code: "unknown-product")
            try RouterRequests.expectJSON(
                try await Self.submit(client, key: key, fields(unknown)), .notFound, code: "unknown-upload")

            // Another publisher's upload is not this one's.
            let otherKey = try await PublisherRequests.makeKey(application.ledger, publisher: "elsewhere").key
            let theirs = try await Self.upload(client, key: otherKey, length: 10, sent: 10)
            try RouterRequests.expectJSON(
                try await Self.submit(client, key: key, fields(theirs)), .notFound, code: "unknown-upload")

            let partial = try await Self.upload(client, key: key, length: 100, sent: 40)
            let incomplete = try await Self.submit(client, key: key, fields(partial))
            try RouterRequests.expectJSON(incomplete, .conflict, code: "upload-incomplete")
            #expect(String(buffer: incomplete.body).contains("40 of 100 bytes"))

            // Past its expiry on the upload clock, a complete upload is gone for good.
            let complete = try await Self.upload(client, key: key, length: 10, sent: 10)
            clock.now.add(30 * 86_400, ordering: .relaxed)
            try RouterRequests.expectJSON(
                try await Self.submit(client, key: key, fields(complete)), .gone, code: "upload-expired")
        }
    }

    @Test func aKeyScopedToOtherContentIsRefused() async throws {
        try await Self.withRouter(prefixes: ["com.example.level1"]) { _, client, key, _ in
            let upload = try await Self.upload(client, key: key, length: 10, sent: 10)
            let fields = "\"upload\": \"\(upload)\", \"version\": \"3.0\", \"sha256\": \"\(Self.sha256)\""
            let content = try await Self.submit(client, key: key, fields + ", \"contentId\": \"com.other.pack\"")
            try RouterRequests.expectJSON(content, .forbidden, code: "content-out-of-scope")
            let product = try await Self.submit(client, key: key, product: "com.example.coins", fields)
            try RouterRequests.expectJSON(product, .forbidden, code: "product-out-of-scope")
        }
    }
}
