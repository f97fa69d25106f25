import Foundation
import Testing

@Suite("HTTP/1.1 connection handling around the bundle handler")
struct ConnectionTests {
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let grant = "Authorization: Bearer \(server.grant(digest))"
            let client = try RawHTTPClient(port: server.port)
            // A router request, a bundle request, a router request, a bundle range: all in one write.
            try client.send(
                RawHTTPClient.get("/v1/products") + RawHTTPClient.get("/v1/bundles/\(digest)", [grant])
                    + RawHTTPClient.get("/products_v1.json")
                    + RawHTTPClient.get("/v1/bundles/\(digest)", [grant, "Range: bytes=0-3"]))
            let first = try client.readResponse()
            let second = try client.readResponse()
            let third = try client.readResponse()
            let fourth = try client.readResponse()
            #expect(first.status == 200 && first.text.hasPrefix("{\"products\""))
            #expect(second.status == 200 && second.body == (try server.bundleBytes(digest)))
            #expect(third.status == 200 && third.text.hasPrefix("[\"com.example"))
            #expect(fourth.status == 206 && fourth.body == [0x50, 0x4B, 0x03, 0x04])
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let client = try RawHTTPClient(port: server.port)
            let response = try client.request(
                RawHTTPClient.get("/v1/bundles/\(digest)", ["Authorization: Bearer \(server.grant(digest))", "Connection: close"]))
            #expect(response.status == 200)
            #expect(response.value("Connection") == "close")
            #expect(client.isClosedByPeer())
        }
    }

    @Test func http10KeepAliveIsAnsweredExplicitly() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.monthly.2026-09").digest
            let client = try RawHTTPClient(port: server.port)
            let request = "GET /v1/bundles/\(digest) HTTP/1.0\r\nAuthorization: Bearer \(server.grant(digest))\r\nConnection: keep-alive\r\n\r\n"
            let response = try client.request(request)
            #expect(response.status == 200)
            #expect(response.value("Connection") == "keep-alive")
            let plain = try client.request("GET /v1/bundles/\(digest) HTTP/1.0\r\nAuthorization: Bearer \(server.grant(digest))\r\n\r\n")
            #expect(plain.status == 200)
            #expect(plain.value("Connection") == "close")
            #expect(client.isClosedByPeer())
        }
    }
}
