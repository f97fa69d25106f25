@testable import DepotServerTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Requests and checks the router-tier tests share: a JSON POST, and the fields every answer of the JSON API
/// carries.
enum RouterRequests {
    /// Posts `json` to `uri`, with `headers` added.
    static func post(
        _ client: any TestClientProtocol, _ uri: String, _ json: String, headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        var fields = headers
        fields[.contentType] = "application/json"
        return try await client.execute(uri: uri, method: .post, headers: fields, body: ByteBuffer(string: json))
    }

    /// Checks that `response` is a JSON answer of `status` that no cache keeps, with a request id; an error answer's
    /// body is Depot's error body, with `code` when given.
    static func expectJSON(
        _ response: TestResponse, _ status: HTTPResponse.Status, code: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == status, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        #expect(response.headers[.contentType] == "application/json", sourceLocation: sourceLocation)
        #expect(response.headers[.cacheControl] == "no-store", sourceLocation: sourceLocation)
        #expect(response.headers[HTTPField.Name("X-Request-Id")!] != nil, sourceLocation: sourceLocation)
        guard status.code >= 400 else { return }
        let error = try #require(
            try RoutedRequestTests.object(response)["error"] as? [String: Any], sourceLocation: sourceLocation)
        #expect(error["message"] is String, sourceLocation: sourceLocation)
        if let code {
            #expect(error["code"] as? String == code, sourceLocation: sourceLocation)
        } else {
            #expect(error["code"] is String, sourceLocation: sourceLocation)
        }
    }

    /// Checks `/readyz`'s answer for an application on a working SQLite ledger: ready, unless the machine was too
    /// loaded for the ledger's read to answer within the probe's fixed bound (a timing the tests do not assert; the
    /// probe's reasons are tested deterministically in `ReadinessRouteTests`).
    static func expectReady(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = String(buffer: response.body)
        if response.status == .ok {
            #expect(text == "ready\n", sourceLocation: sourceLocation)
        } else {
            #expect(
                response.status == .serviceUnavailable && text.hasPrefix("not ready: the ledger did not answer within"),
                "\(text)", sourceLocation: sourceLocation)
        }
    }
}

extension RouterRequests {
    /// The packs a router-tier application is prepared on: level 1 and an issue of the monthly magazine, each a few
    /// kilobytes, so that preparing one (bundles built and deflated) stays cheap when the whole tier runs at once.
    static let packs: [LiveServer.PackSpec] = [
        LiveServer.PackSpec(
            directory: "game/level1", productId: "com.example.level1",
            files: ["maps/cave.json": Array("{\"tiles\": [[0,1,1,0]]}".utf8), "notes.txt": Array(repeating: 0x61, count: 4096)]),
        LiveServer.PackSpec(
            directory: "magazine/2026-09", productId: "com.example.monthly", contentId: "com.example.monthly.2026-09",
            publishedAt: "2026-09-01T06:00:00Z", files: ["article.md": Array("# September\n".utf8)]),
    ]
}
