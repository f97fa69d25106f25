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
            let given = try await PurchaseFlowTests.post(client, "/v1/transactions", "{\"signedTransaction\": 1}")
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

    static func errorRequestId(_ response: RawHTTPClient.Response) throws -> String? {
        let error = try #require(try PurchaseFlowTests.object(response)["error"] as? [String: Any])
        #expect(error["code"] is String && error["message"] is String)
        return error["requestId"] as? String
    }

    /// 32 lowercase hex digits.
    static func isGenerated(_ id: String) -> Bool {
        id.utf8.count == 32 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }
}
