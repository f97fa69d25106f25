@testable import DepotServerTestSupport
import DepotTelemetry
import DepotCore
import Foundation
import Testing

/// Every routed answer names its request in `X-Request-Id`: the client's id when valid, a fresh one otherwise,
/// and error bodies carry the same id as `error.requestId`.
@Suite("Request ids on a live server")
struct RequestIdTests {
    @Test func aValidIdIsKeptAndAnInvalidOneReplaced() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let kept = try await client.request(RawHTTPClient.get("/v1/products", ["X-Request-Id: trace-42.abc:def"]))
            #expect(kept.status == 200)
            #expect(kept.value("X-Request-Id") == "trace-42.abc:def")

            for invalid in ["has space", "quote\"d", String(repeating: "a", count: 129)] {
                let replaced = try await client.request(RawHTTPClient.get("/v1/products", ["X-Request-Id: \(invalid)"]))
                let id = try #require(replaced.value("X-Request-Id"))
                #expect(id != invalid && Self.isGenerated(id), "\(id)")
            }
            let first = try #require(try await client.request(RawHTTPClient.get("/healthz")).value("X-Request-Id"))
            let second = try #require(try await client.request(RawHTTPClient.get("/healthz")).value("X-Request-Id"))
            #expect(Self.isGenerated(first) && Self.isGenerated(second) && first != second)
        }
    }

    @Test func errorBodiesCarryTheRequestId() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            let given = try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": 1}")
            #expect(given.status == 400)
            #expect(try Self.errorRequestId(given) == given.value("X-Request-Id"))

            let withId = try await client.request(RawHTTPClient.get("/no/such/route", ["X-Request-Id: mine-1"]))
            #expect(withId.status == 404)
            #expect(withId.value("X-Request-Id") == "mine-1")
            #expect(try Self.errorRequestId(withId) == "mine-1")

            let admin = try await client.request(RawHTTPClient.get("/v1/admin/apple-outbox"))
            #expect(admin.status == 401)
            let id = try #require(admin.value("X-Request-Id"))
            #expect(try Self.errorRequestId(admin) == id && Self.isGenerated(id))
        }
    }

    /// Answers written below Hummingbird follow the same rule: an error names its request (the client's valid id,
    /// or a fresh one) in the field and in its body; any other answer echoes a valid id, and adds none of its own.
    @Test func bundleAnswersNameTheirRequestAsRoutedOnesDo() async throws {
        try await LiveServer.with { server in
            let version = try server.version("com.example.level1")
            let path = "/v1/bundles/\(version.digest)"
            let grant = "Authorization: Bearer \(server.grant(version.digest.hex))"
            let client = try RawHTTPClient(port: server.port)

            let plain = try await client.request(RawHTTPClient.get(path, [grant]))
            #expect(plain.status == 200 && plain.value("X-Request-Id") == nil)
            let echoed = try await client.request(RawHTTPClient.get(path, [grant, "X-Request-Id: cdn-7.abc"]))
            #expect(echoed.status == 200 && echoed.value("X-Request-Id") == "cdn-7.abc")
            #expect(Int64(echoed.body.count) == version.size)
            let ranged = try await client.request(RawHTTPClient.get(path, [grant, "Range: bytes=0-9", "X-Request-Id: r-1"]))
            #expect(ranged.status == 206 && ranged.value("X-Request-Id") == "r-1")
            let notModified = try await client.request(RawHTTPClient.get(path, [grant, "If-None-Match: *"]))
            #expect(notModified.status == 304 && notModified.value("X-Request-Id") == nil)
            let invalidOnSuccess = try await client.request(RawHTTPClient.get(path, [grant, "X-Request-Id: has space"]))
            #expect(invalidOnSuccess.status == 200 && invalidOnSuccess.value("X-Request-Id") == nil)

            // Refusals: 401 without a grant, 404 for an unknown bundle, 416 past the end.
            let refusals = [
                RawHTTPClient.get(path), RawHTTPClient.get("/v1/bundles/not-a-digest", [grant]),
                RawHTTPClient.get(path, [grant, "Range: bytes=\(version.size + 1)-"]),
            ]
            for request in refusals {
                let generated = try await client.request(request)
                #expect([401, 404, 416].contains(generated.status), "\(generated.text)")
                let id = try #require(generated.value("X-Request-Id"))
                #expect(Self.isGenerated(id), "\(generated.text)")
                #expect(try Self.errorRequestId(generated) == id)
                let named = try await client.request(request.replacingOccurrences(of: "\r\n\r\n", with: "\r\nX-Request-Id: mine-2\r\n\r\n"))
                #expect(named.status == generated.status && named.value("X-Request-Id") == "mine-2")
                #expect(try Self.errorRequestId(named) == "mine-2")
                let replaced = try await client.request(
                    request.replacingOccurrences(of: "\r\n\r\n", with: "\r\nX-Request-Id: quote\"d\r\n\r\n"))
                let fresh = try #require(replaced.value("X-Request-Id"))
                #expect(Self.isGenerated(fresh) && fresh != id)
                #expect(try Self.errorRequestId(replaced) == fresh)
            }

            // A request the decoder reads (a field in a form the recognizer leaves to it) is answered alike.
            let decoded = try await client.request(RawHTTPClient.get(path, ["X-Note: trailing ", "X-Request-Id: d-1"]))
            #expect(decoded.status == 401 && decoded.value("X-Request-Id") == "d-1", "\(decoded.text)")
            #expect(try Self.errorRequestId(decoded) == "d-1")
        }
    }

    static func errorRequestId(_ response: RawHTTPClient.Response) throws -> String? {
        let error = try #require(try PurchaseSteps.object(response)["error"] as? [String: Any])
        #expect(error["code"] is String && error["message"] is String)
        return error["requestId"] as? String
    }

    /// 32 lowercase hex digits.
    static func isGenerated(_ id: String) -> Bool {
        id.utf8.count == 32 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }
}
