@testable import DepotServerTestSupport
import Foundation
import Testing

/// A JSON body over the limit (4 MiB) gets 413 and the connection ends with the answer: a declared length
/// over the limit is refused before any of the body is sent, and a body that grows past the limit while it
/// arrives is not read to its end.
@Suite("Request bodies over the limit on a live server")
struct BodyLimitTests {
    @Test func aDeclaredLengthOverTheLimitIsRefusedBeforeTheBodyAndTheConnectionCloses() async throws {
        try await LiveServer.with { server in
            let client = try RawHTTPClient(port: server.port)
            // Only the head: the answer cannot wait for a body that never comes.
            try await client.send(
                "POST /v1/transactions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100000000\r\n\r\n")
            let answer = try await client.readResponse()
            #expect(answer.status == 413, "\(answer.text)")
            #expect(answer.text.contains("\"code\":\"too-large\""), "\(answer.text)")
            #expect(answer.value("Connection") == "close")
            #expect(await client.isClosedByPeer())
        }
    }

    @Test func aChunkedBodyThatGrowsPastTheLimitIsCutWithTheAnswer() async throws {
        // A request deadline far beyond the time a loaded machine takes to send 5 MiB: the answer is the limit's.
        try await LiveServer.with(requestTimeoutSeconds: 3600) { server in
            let client = try RawHTTPClient(port: server.port)
            try await client.send(
                "POST /v1/transactions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n")
            // 5 MiB in 64 KiB chunks, then no end: the server must answer once the limit is passed.
            let chunk = "10000\r\n" + String(repeating: "x", count: 65_536) + "\r\n"
            try? await client.send(String(repeating: chunk, count: 80))
            let answer = try await client.readResponse()
            #expect(answer.status == 413, "\(answer.text)")
            #expect(answer.value("Connection") == "close")
            #expect(await client.isClosedByPeer())
        }
    }
}
