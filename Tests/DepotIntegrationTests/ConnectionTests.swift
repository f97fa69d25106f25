@testable import DepotServerTestSupport
import DepotCore
import DepotTrust
import Foundation
import Testing

@Suite("HTTP/1.1 connection handling around the bundle handler")
struct ConnectionTests {
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let grant = "Authorization: Bearer \(server.grant(digest.hex))"
            let client = try RawHTTPClient(port: server.port)
            // A router request, a bundle request, a router request, a bundle range: all in one write.
            try await client.send(
                RawHTTPClient.get("/v1/products") + RawHTTPClient.get("/v1/bundles/\(digest)", [grant])
                    + RawHTTPClient.get("/products_v1.json")
                    + RawHTTPClient.get("/v1/bundles/\(digest)", [grant, "Range: bytes=0-3"]))
            let first = try await client.readResponse()
            let second = try await client.readResponse()
            let third = try await client.readResponse()
            let fourth = try await client.readResponse()
            #expect(first.status == 200 && first.text.hasPrefix("{\"products\""))
            let bundle = try server.bundleBytes(digest.hex)
            #expect(second.status == 200 && second.body == bundle)
            #expect(third.status == 200 && third.text.hasPrefix("[\"com.example"))
            #expect(fourth.status == 206 && fourth.body == [0x50, 0x4B, 0x03, 0x04])
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let client = try RawHTTPClient(port: server.port)
            let response = try await client.request(
                RawHTTPClient.get("/v1/bundles/\(digest)", ["Authorization: Bearer \(server.grant(digest.hex))", "Connection: close"]))
            #expect(response.status == 200)
            #expect(response.value("Connection") == "close")
            #expect(await client.isClosedByPeer())
        }
    }

    @Test func http10KeepAliveIsAnsweredExplicitly() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let client = try RawHTTPClient(port: server.port)
            let request =
                "GET /v1/bundles/\(digest) HTTP/1.0\r\nAuthorization: Bearer \(server.grant(digest.hex))\r\nConnection: keep-alive\r\n\r\n"
            let response = try await client.request(request)
            #expect(response.status == 200)
            #expect(response.value("Connection") == "keep-alive")
            let plain = try await client.request(
                "GET /v1/bundles/\(digest) HTTP/1.0\r\nAuthorization: Bearer \(server.grant(digest.hex))\r\n\r\n")
            #expect(plain.status == 200)
            #expect(plain.value("Connection") == "close")
            #expect(await client.isClosedByPeer())
        }
    }

    /// A bundle HEAD answered below the router and a routed request after it on the same connection: the
    /// routed answer must come whole (it once lost its body, and the client waited for it).
    @Test func routedRequestAfterBundleHeadIsAnsweredWhole() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let grant = "Authorization: Bearer \(server.grant(digest.hex))"
            let client = try RawHTTPClient(port: server.port)
            let head = try await client.request(RawHTTPClient.get("/v1/bundles/\(digest)", [grant], method: "HEAD"), head: true)
            #expect(head.status == 200)
            #expect(head.value("Content-Length") == String(try server.bundleBytes(digest.hex).count))
            let health = try await client.request(RawHTTPClient.get("/healthz"))
            #expect(health.status == 200 && health.text == "ok\n")
            let products = try await client.request(RawHTTPClient.get("/v1/products"))
            #expect(products.status == 200 && products.text.hasPrefix("{\"products\""))
        }
    }

    /// The same, pipelined in one write, with routed HEADs between: each HEAD answer carries no body and each
    /// GET answer its whole body, in request order.
    @Test func pipelinedBundleAndRoutedHeadsKeepTheirFraming() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let grant = "Authorization: Bearer \(server.grant(digest.hex))"
            let client = try RawHTTPClient(port: server.port)
            try await client.send(
                RawHTTPClient.get("/v1/bundles/\(digest)", [grant], method: "HEAD") + RawHTTPClient.get("/healthz")
                    + RawHTTPClient.get("/healthz", method: "HEAD") + RawHTTPClient.get("/v1/bundles/\(digest)", [grant])
                    + RawHTTPClient.get("/no-such-route", method: "HEAD") + RawHTTPClient.get("/v1/products"))
            let bundleHead = try await client.readResponse(head: true)
            let health = try await client.readResponse()
            let healthHead = try await client.readResponse(head: true)
            let bundle = try await client.readResponse()
            let missingHead = try await client.readResponse(head: true)
            let products = try await client.readResponse()
            #expect(bundleHead.status == 200)
            #expect(health.status == 200 && health.text == "ok\n")
            // The router has no HEAD route for it: an error answer, whose JSON body a HEAD answer leaves out.
            #expect((400..<500).contains(healthHead.status))
            let bytes = try server.bundleBytes(digest.hex)
            #expect(bundle.status == 200 && bundle.body == bytes)
            #expect(missingHead.status == 404)
            #expect(products.status == 200 && products.text.hasPrefix("{\"products\""))
        }
    }
}
