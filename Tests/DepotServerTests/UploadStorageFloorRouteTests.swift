@testable import DepotServer
@testable import DepotServerTestSupport
import DepotSettings
import DepotTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The free-space floor (`storage.minFreeBytes`) at the upload routes and in `/metrics`, through the router without a
/// socket: a floor no disk can meet refuses every new upload and append with 507 `insufficient-storage` before its body
/// is read, and says so in `depot_disk_below_floor`; a floor of 0 refuses nothing.
@Suite("The free-space floor at the upload routes")
struct UploadStorageFloorRouteTests {
    static func withRouter(
        minFreeBytes: Int64, _ name: String = #function,
        _ body: @Sendable (DepotApplication, any TestClientProtocol, String) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        let application = try await LiveServer.prepared(
            in: scratch, packs: RouterRequests.packs, settings: "\"storage\": {\"minFreeBytes\": \(minFreeBytes)}")
        let (router, _, _) = application.makeRouter()
        do {
            let key = try await PublisherRequests.makeKey(application.ledger).key
            try await Application(router: router).test(.router) { client in try await body(application, client, key) }
        } catch {
            await application.close()
            throw error
        }
        await application.close()
    }

    static func create(_ client: any TestClientProtocol, key: String) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/publisher/uploads", method: .post,
            headers: [.authorization: "Bearer \(key)", HTTPField.Name("Tus-Resumable")!: "1.0.0", HTTPField.Name("Upload-Length")!: "10"])
    }

    static func metrics(_ client: any TestClientProtocol) async throws -> String {
        let response = try await client.execute(
            uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(LiveServer.adminToken)"])
        #expect(response.status == .ok)
        return String(buffer: response.body)
    }

    @Test func belowTheFloorNewUploadsAndAppendsAre507() async throws {
        try await Self.withRouter(minFreeBytes: Int64.max) { application, client, key in
            let created = try await Self.create(client, key: key)
            #expect(created.status.code == 507)
            #expect(try RoutedRequestTests.errorCode(created) == "insufficient-storage")
            #expect(created.headers[.retryAfter] == "60")
            #expect(created.headers[HTTPField.Name("Tus-Resumable")!] == "1.0.0")
            #expect(!String(buffer: created.body).contains(application.configuration.dataDirectory))
            let appended = try await client.execute(
                uri: "/v1/publisher/uploads/" + String(repeating: "a", count: 32), method: .patch,
                headers: [
                    .authorization: "Bearer \(key)", HTTPField.Name("Tus-Resumable")!: "1.0.0",
                    HTTPField.Name("Upload-Offset")!: "0", .contentType: "application/offset+octet-stream",
                ],
                body: ByteBuffer(string: "0123456789"))
            #expect(appended.status.code == 507)
            #expect(try RoutedRequestTests.errorCode(appended) == "insufficient-storage")
            // Reading an upload's state writes nothing: not refused (404: no such upload).
            let state = try await client.execute(
                uri: "/v1/publisher/uploads/" + String(repeating: "a", count: 32), method: .head,
                headers: [.authorization: "Bearer \(key)", HTTPField.Name("Tus-Resumable")!: "1.0.0"])
            #expect(state.status == .notFound)
            // A request without a key is still told so first.
            let anonymous = try await client.execute(
                uri: "/v1/publisher/uploads", method: .post,
                headers: [HTTPField.Name("Tus-Resumable")!: "1.0.0", HTTPField.Name("Upload-Length")!: "10"])
            #expect(anonymous.status == .unauthorized)
            // Serving and readiness go on.
            let products = try await client.execute(uri: "/v1/products", method: .get)
            #expect(products.status == .ok)
            RouterRequests.expectReady(try await client.execute(uri: "/readyz", method: .get))
            let text = try await Self.metrics(client)
            #expect(text.contains("\ndepot_disk_below_floor 1"), "\(text)")
            #expect(text.contains("depot_disk_free_bytes{path=\"\(application.configuration.dataDirectory)\"}"))
            // Below the floor the instance stays ready: ready exactly when the ledger answered the probe in time.
            #expect(text.contains("\ndepot_ready 1\n") == text.contains("\ndepot_ledger_available 1\n"), "\(text)")
            #expect(text.contains("\ndepot_outbox_oldest_pending_seconds 0"))
        }
    }

    @Test func aFloorOfZeroRefusesNothing() async throws {
        try await Self.withRouter(minFreeBytes: 0) { _, client, key in
            let created = try await Self.create(client, key: key)
            #expect(created.status == .created)
            let text = try await Self.metrics(client)
            #expect(text.contains("\ndepot_disk_below_floor 0"), "\(text)")
        }
    }
}
