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
        // Until the publisher key is accepted (by the route, on the concurrency pool) the whole-request deadline
        // holds: ten seconds leave room for a loaded machine to get there, where three once did not.
        try await UploadServer.with(engine: engine, requestTimeoutSeconds: 10) { server in
            let chunk = 16 << 10
            let chunks = 80
            var random = SeededBytes(seed: 31)
            let data = random.bytes(chunk * chunks)
            let path = try await server.create(length: Int64(data.count))
            let client = try RawHTTPClient(port: server.port)
            try await client.send(Self.patchHead(path, length: data.count))
            // Paced so the body takes about twice the ten-second request timeout, with pauses far shorter than it,
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
            // The stalled PATCH's handler may still hold the upload's lock a moment after its bytes are counted
            // (a loaded machine showed it): a 423 changes nothing and is retried, as a tus client does.
            var status = 0
            try await eventually("the resumed PATCH is taken") {
                status = try await server.patch(path, offset: 100_000, Array(data[100_000...])).status
                return status != 423
            }
            #expect(status == 204)
        }
    }
}

/// An upload refused before its body is read (no key, an unknown key, another tus version) cannot hold its
/// connection: the refusal closes it, however the client keeps sending, and the body never earned the deadline that
/// runs on progress.
@Suite("Refused uploads")
struct RefusedUploadTests {
    static let unknownKey = "dpk_" + String(repeating: "z", count: 43)

    @Test(
        arguments: [
            ([String](), 412), (["Tus-Resumable: 1.0.0"], 401),
            (["Tus-Resumable: 1.0.0", "Authorization: Bearer \(unknownKey)"], 401),
            (["Tus-Resumable: 0.2.2", "Authorization: Bearer \(UploadServer.token)"], 412),
        ])
    func aRefusedTricklingUploadLosesItsConnection(headers: [String], status: Int) async throws {
        // The request timeout stays long (a loaded machine may take seconds to check a key): what cuts the connection
        // here is the refusal itself.
        try await UploadServer.with(engine: .sqlite) { server in
            let client = try RawHTTPClient(port: server.port)
            var head = "PATCH \(UploadRoutes.path)/\(String(repeating: "a", count: 32)) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            for line in headers { head += line + "\r\n" }
            head += "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: 100000000\r\n\r\n"
            try await client.send(head)
            try await client.send(bytes: [UInt8](repeating: 7, count: 1024))
            let answer = try await client.readResponse()
            #expect(answer.status == status, "\(answer.text)")
            #expect(answer.value("Connection") == "close")
            // The client goes on sending a little at a time, from a thread of its own, until the server cuts it (the
            // bound is a fallback only: before, such a connection stayed open as long as bytes kept coming).
            let cut = try await OffPool.run { () -> Bool in
                for _ in 0..<2400 {
                    do {
                        try client.sendNow(bytes: [UInt8](repeating: 7, count: 1024))
                    } catch {
                        return true
                    }
                    usleep(250_000)
                }
                return false
            }
            #expect(cut, "the connection stayed open while the refused body trickled in")
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

    @Test func anUploadWithoutAKeyGetsItsRefusalInsteadOfContinue() async throws {
        try await UploadServer.with(engine: .sqlite) { server in
            let client = try RawHTTPClient(port: server.port)
            try await client.send(
                "PATCH \(UploadRoutes.path)/\(String(repeating: "b", count: 32)) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Tus-Resumable: 1.0.0\r\nContent-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\n"
                    + "Content-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let answer = try await client.readResponse()
            #expect(answer.status == 401)
            #expect(await client.isClosedByPeer())
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
