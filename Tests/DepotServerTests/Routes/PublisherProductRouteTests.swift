@testable import DepotServer
@testable import DepotServerTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `PublisherProductRoutes` through the router without a socket: a product created, updated and read with its
/// versions, its type locked once it has a version, a version removed only while never published, and the
/// refusals of each field, parameter and scope.
@Suite("Publisher product routes without a socket")
struct PublisherProductRouteTests {
    /// Runs `body` with a router over the standard packs and a publisher key for `prefixes`.
    static func withRouter(
        prefixes: [String] = [], _ name: String = #function,
        _ body: @Sendable (any TestClientProtocol, String) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        let application = try await LiveServer.prepared(in: scratch, packs: RouterRequests.packs)
        let (router, _, _) = application.makeRouter()
        do {
            let key = try await PublisherRequests.makeKey(application.ledger, prefixes: prefixes).key
            try await Application(router: router).test(.router) { client in try await body(client, key) }
        } catch {
            await application.close()
            throw error
        }
        await application.close()
    }

    /// Sends `method` to `/v1/publisher/products/{path}` with `key` and an optional JSON body.
    static func send(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, key: String?, _ json: String? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = key.map { [.authorization: "Bearer \($0)"] } ?? [:]
        if json != nil { headers[.contentType] = "application/json" }
        return try await client.execute(
            uri: "/v1/publisher/products/\(path)", method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }

    @Test func aProductIsCreatedUpdatedAndRead() async throws {
        try await Self.withRouter { client, key in
            let created = try await Self.send(
                client, .put, "com.example.pass", key: key, "{\"type\": \"nonRenewing\", \"title\": \"Pass\", \"periodDays\": 7}")
            try RouterRequests.expectJSON(created, .created)
            let product = try #require(try RoutedRequestTests.object(created)["product"] as? [String: Any])
            #expect(product["id"] as? String == "com.example.pass")
            #expect(product["type"] as? String == "nonRenewing")
            #expect(product["periodDays"] as? Int == 7)
            #expect((product["versions"] as? [Any])?.isEmpty == true)

            // Without a version or a transaction, everything may change.
            let updated = try await Self.send(
                client, .put, "com.example.pass", key: key, "{\"type\": \"consumable\", \"title\": \"Pass, renamed\"}")
            try RouterRequests.expectJSON(updated, .ok)
            let read = try await Self.send(client, .get, "com.example.pass", key: key)
            try RouterRequests.expectJSON(read, .ok)
            let stored = try #require(try RoutedRequestTests.object(read)["product"] as? [String: Any])
            #expect(stored["type"] as? String == "consumable" && stored["title"] as? String == "Pass, renamed")
            #expect(stored["periodDays"] == nil || stored["periodDays"] is NSNull)
        }
    }

    @Test func aProductWithAVersionKeepsItsTypeAndListsItsVersions() async throws {
        try await Self.withRouter { client, key in
            let versions = try await Self.send(client, .get, "com.example.level1/versions", key: key)
            try RouterRequests.expectJSON(versions, .ok)
            let list = try #require(try RoutedRequestTests.object(versions)["versions"] as? [[String: Any]])
            #expect(list.map { $0["version"] as? String } == ["1.0"])
            #expect(list.first?["current"] as? Bool == true)
            #expect(list.first?["digest"] is String)

            let retitled = try await Self.send(
                client, .put, "com.example.level1", key: key, "{\"type\": \"nonConsumable\", \"title\": \"Level One\"}")
            try RouterRequests.expectJSON(retitled, .ok)
            let retyped = try await Self.send(
                client, .put, "com.example.level1", key: key, "{\"type\": \"consumable\", \"title\": \"Level One\"}")
            try RouterRequests.expectJSON(retyped, .conflict, code: "product-type-locked")

            // A published version is kept; an unknown one is not found.
            let published = try await Self.send(client, .delete, "com.example.level1/versions/1.0", key: key)
            try RouterRequests.expectJSON(published, .conflict, code: "version-was-published")
            let unknown = try await Self.send(client, .delete, "com.example.level1/versions/9.9", key: key)
            try RouterRequests.expectJSON(unknown, .notFound, code: "unknown-version")
        }
    }

    @Test func fieldsAndParametersAreRefusedUnderTheirCodes() async throws {
        try await Self.withRouter { client, key in
            for (json, code) in [
                ("{\"title\": \"T\"}", "invalid-type"), ("{\"type\": \"gift\", \"title\": \"T\"}", "invalid-type"),
                ("{\"type\": \"consumable\"}", "invalid-title"), ("{\"type\": \"consumable\", \"title\": \"  \"}", "invalid-title"),
                ("{\"type\": \"consumable\", \"title\": \"a\\u0007b\"}", "invalid-title"),
                ("{\"type\": \"consumable\", \"title\": \"\(String(repeating: "t", count: 201))\"}", "invalid-title"),
                ("{\"type\": \"nonRenewing\", \"title\": \"T\"}", "invalid-period"),
                ("{\"type\": \"nonRenewing\", \"title\": \"T\", \"periodDays\": 36501}", "invalid-period"),
                ("{\"type\": \"consumable\", \"title\": \"T\", \"periodDays\": 30}", "invalid-period"),
                ("{\"type\": 3, \"title\": \"T\"}", "bad-request"),
            ] {
                let refused = try await Self.send(client, .put, "com.example.new", key: key, json)
                try RouterRequests.expectJSON(refused, .badRequest, code: code)
            }
            for path in ["%2Ehidden", "a%20b", String(repeating: "p", count: 129)] {
                let refused = try await Self.send(client, .get, path, key: key)
                try RouterRequests.expectJSON(refused, .badRequest, code: "invalid-product-id")
            }
            let content = try await Self.send(client, .delete, "com.example.level1/versions/1.0?contentId=a%20b", key: key)
            try RouterRequests.expectJSON(content, .badRequest, code: "invalid-content-id")
            let missing = try await Self.send(client, .get, "com.example.nothing", key: key)
            try RouterRequests.expectJSON(missing, .notFound, code: "unknown-product")
            let anonymous = try await Self.send(client, .get, "com.example.level1", key: nil)
            try RouterRequests.expectJSON(anonymous, .unauthorized, code: "publisher-key-required")
        }
    }

    @Test func aKeyActsOnlyWithinItsScope() async throws {
        try await Self.withRouter(prefixes: ["com.example.level"]) { client, key in
            try RouterRequests.expectJSON(try await Self.send(client, .get, "com.example.level1", key: key), .ok)
            for (method, path) in [
                (HTTPRequest.Method.get, "com.example.coins"), (.get, "com.example.coins/versions"),
                (.delete, "com.example.coins/versions/1.0"),
            ] {
                let refused = try await Self.send(client, method, path, key: key)
                try RouterRequests.expectJSON(refused, .forbidden, code: "product-out-of-scope")
            }
            let put = try await Self.send(client, .put, "com.other.thing", key: key, "{\"type\": \"consumable\", \"title\": \"T\"}")
            try RouterRequests.expectJSON(put, .forbidden, code: "product-out-of-scope")
        }
    }
}
