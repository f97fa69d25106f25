import DepotTestSupport
import Foundation
import NIOHTTP1
import Testing

@testable import DepotServer

/// The request deadline and uploads: a PATCH whose bytes keep coming may take longer than
/// `server.requestTimeoutSeconds`; one that stops sending is cut after it, and keeps what arrived.
@Suite("Upload deadlines")
struct UploadDeadlineTests {
    static func patchHead(_ path: String, length: Int) -> String {
        var head = "PATCH \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for line in UploadServer.tusHeaders { head += line + "\r\n" }
        return head + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: \(length)\r\n\r\n"
    }

    @Test(arguments: LedgerEngine.allCases)
    func aSlowUploadThatKeepsSendingOutlivesTheRequestTimeout(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine, requestTimeoutSeconds: 3) { server in
            let chunk = 16 << 10
            let chunks = 24
            var random = SeededBytes(seed: 31)
            let data = random.bytes(chunk * chunks)
            let path = try await server.create(length: Int64(data.count))
            let client = try RawHTTPClient(port: server.port)
            try await client.send(Self.patchHead(path, length: data.count))
            // Paced so the body takes about twice the three-second request timeout, with pauses far shorter than it,
            // from a thread of its own (the concurrency pool can be held up for seconds on a loaded machine).
            try await OffPool.run {
                for index in 0..<chunks {
                    try client.sendNow(bytes: Array(data[(index * chunk)..<((index + 1) * chunk)]))
                    usleep(250_000)
                }
            }
            let answer = try await client.readResponse()
            #expect(answer.status == 204, "\(answer.status) \(answer.text)")
            #expect(answer.value("Upload-Offset") == String(data.count))
        }
    }

    @Test(arguments: LedgerEngine.allCases)
    func anUploadThatStopsSendingIsCutAndKeepsItsBytes(engine: LedgerEngine) async throws {
        try await UploadServer.with(engine: engine, requestTimeoutSeconds: 3) { server in
            var random = SeededBytes(seed: 32)
            let data = random.bytes(300_000)
            let path = try await server.create(length: Int64(data.count))
            let client = try RawHTTPClient(port: server.port)
            try await client.send(Self.patchHead(path, length: data.count))
            try await client.send(bytes: Array(data[..<100_000]))
            // No more bytes: the server answers 408 and closes.
            let answer = try await client.readResponse()
            #expect(answer.status == 408)
            #expect(await client.isClosedByPeer())
            try await eventually("the stalled PATCH's bytes are counted", within: 300) { try await server.offset(path) == 100_000 }
            #expect(try await server.patch(path, offset: 100_000, Array(data[100_000...])).status == 204)
        }
    }
}

/// `Expect: 100-continue` on an upload is answered at once, so a client such as `curl -T` does not wait.
@Suite("Upload 100-continue")
struct UploadContinueTests {
    @Test func anUploadThatExpectsContinueGetsItBeforeSendingItsBody() async throws {
        try await UploadServer.with(engine: .sqlite) { server in
            let body = Array("expected body".utf8)
            let path = try await server.create(length: Int64(body.count))
            let client = try RawHTTPClient(port: server.port)
            var head = UploadDeadlineTests.patchHead(path, length: body.count)
            head = String(head.dropLast()) + "Expect: 100-continue\r\n\r\n"  // "\r\n" is one Character
            try await client.send(head)
            // Nothing of the body was sent: only the interim answer can arrive now.
            let interim = try await client.readResponse(head: true)
            #expect(interim.status == 100)
            try await client.send(bytes: body)
            let answer = try await client.readResponse()
            #expect(answer.status == 204)
            #expect(answer.value("Upload-Offset") == String(body.count))
        }
    }

    @Test(
        arguments: [
            ("PATCH", "/v1/publisher/uploads/ab", "100-continue", HTTPVersion.http1_1, false, true),
            ("POST", "/v1/publisher/uploads", "100-Continue", .http1_1, false, true),
            ("PATCH", "/v1/publisher/uploads/ab", "100-continue", .http1_1, true, false),
            ("PATCH", "/v1/publisher/uploads/ab", "100-continue", .http1_0, false, false),
            ("PATCH", "/v1/publisher/uploads/ab", "", .http1_1, false, false),
            ("POST", "/v1/transactions", "100-continue", .http1_1, false, false),
        ] as [(String, String, String, HTTPVersion, Bool, Bool)])
    func continueRule(method: String, uri: String, expect: String, version: HTTPVersion, pending: Bool, sends: Bool) {
        var head = HTTPRequestHead(version: version, method: HTTPMethod(rawValue: method), uri: uri)
        if !expect.isEmpty { head.headers.add(name: "Expect", value: expect) }
        #expect(RequestDeadline.sendsContinue(head, earlierAnswersPending: pending) == sends)
    }
}
