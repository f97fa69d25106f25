@testable import DepotServerTestSupport
@testable import DepotOrigin
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

    /// The request timeouts an attempt runs with, longer each time. Until the publisher key is accepted the
    /// whole-request deadline holds, and a loaded machine can take longer than any fixed timeout to reach the upload
    /// route: an attempt cut before the route took the body says nothing about the deadline on a body, and is made
    /// again with a longer timeout.
    static let attemptTimeouts = [3, 12, 48, 192]

    /// The upload's file in the server's data directory.
    static func file(of path: String, in server: UploadServer) -> String {
        server.scratch.path + "/data/uploads/" + (path.split(separator: "/").last.map(String.init) ?? "")
    }

    /// Waits until the server's upload route holds the upload's lock (it writes the body), or an answer arrives
    /// first: true in the first case. An answer is looked for first, so that a poll delayed past both sees the answer.
    static func awaitBodyTaken(_ file: String, client: RawHTTPClient) async throws -> Bool {
        await OffPool.run { () -> Bool in
            while true {
                if client.hasBytesWaiting() { return false }
                if FileLocks.isLocked(file) { return true }
                usleep(5_000)
            }
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aSlowUploadThatKeepsSendingOutlivesTheRequestTimeout(engine: LedgerEngine) async throws {
        var checked = false
        // Pauses of a quarter second leave a loaded machine room under a ten-second timeout; an attempt cut before the
        // route took the body is made again with a longer one.
        for timeout in [10, 40, 160] where !checked {
            checked = try await Self.slowUploadOnce(engine: engine, requestTimeoutSeconds: timeout)
        }
        #expect(checked, "the server never took the upload's body before its request deadline")
    }

    /// One upload paced to take about twice the request timeout. False when the server cut the request before its
    /// upload route took the body.
    static func slowUploadOnce(engine: LedgerEngine, requestTimeoutSeconds: Int) async throws -> Bool {
        // True unless the attempt was cut too early (and when the engine's server is missing, the test is skipped).
        var checked = true
        try await UploadServer.with(engine: engine, requestTimeoutSeconds: requestTimeoutSeconds) { server in
            let chunk = 16 << 10
            let chunks = 8 * requestTimeoutSeconds
            var random = SeededBytes(seed: 31)
            let data = random.bytes(chunk * chunks)
            let path = try await server.create(length: Int64(data.count))
            let client = try RawHTTPClient(port: server.port)
            try await client.send(Self.patchHead(path, length: data.count))
            try await client.send(bytes: Array(data[..<chunk]))
            guard try await Self.awaitBodyTaken(Self.file(of: path, in: server), client: client) else {
                _ = try await client.readResponse()
                checked = false
                return
            }
            // Paced so the body takes about twice the request timeout, with pauses far shorter than it, from a
            // thread of its own (the concurrency pool can be held up for seconds on a loaded machine).
            try await OffPool.run {
                for index in 1..<chunks {
                    try client.sendNow(bytes: Array(data[(index * chunk)..<((index + 1) * chunk)]))
                    usleep(250_000)
                }
            }
            let answer = try await client.readResponse()
            #expect(answer.status == 204, "\(answer.status) \(answer.text)")
            #expect(answer.value("Upload-Offset") == String(data.count))
        }
        return checked
    }

    @Test(arguments: LedgerEngine.tested)
    func anUploadThatStopsSendingIsCutAndKeepsItsBytes(engine: LedgerEngine) async throws {
        var checked = false
        for timeout in Self.attemptTimeouts where !checked {
            checked = try await Self.stallOnce(engine: engine, requestTimeoutSeconds: timeout)
        }
        #expect(checked, "the server never took the upload's body before its request deadline")
    }

    /// One stalled upload. False when the server cut the request before its upload route took the body (the attempt checked nothing).
    static func stallOnce(engine: LedgerEngine, requestTimeoutSeconds: Int) async throws -> Bool {
        // True unless the attempt was cut too early (and when the engine's server is missing, the test is skipped).
        var checked = true
        try await UploadServer.with(engine: engine, requestTimeoutSeconds: requestTimeoutSeconds) { server in
            var random = SeededBytes(seed: 32)
            let data = random.bytes(300_000)
            let path = try await server.create(length: Int64(data.count))
            let client = try RawHTTPClient(port: server.port)
            try await client.send(Self.patchHead(path, length: data.count))
            try await client.send(bytes: Array(data[..<100_000]))
            let taken = try await Self.awaitBodyTaken(Self.file(of: path, in: server), client: client)
            // No more bytes: the server answers 408 and closes.
            let answer = try await client.readResponse()
            #expect(answer.status == 408)
            #expect(await client.isClosedByPeer())
            guard taken else {
                checked = false
                return
            }
            try await eventually("the stalled PATCH's bytes are counted") { try await server.offset(path) == 100_000 }
            // The stalled PATCH's handler may still hold the upload's lock a moment after its bytes are counted
            // (a loaded machine showed it): a 423 changes nothing and is retried, as a tus client does.
            var status = 0
            try await eventually("the resumed PATCH is taken") {
                status = try await server.patch(path, offset: 100_000, Array(data[100_000...])).status
                return status != 423
            }
            #expect(status == 204)
        }
        return checked
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
            let cut = await OffPool.run { () -> Bool in
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
