@testable import DepotServerTestSupport
import DepotCore
import DepotServer
import Foundation
import Synchronization
import Testing

/// `server.requestTimeoutSeconds`: a request whose head and body do not arrive in full in time is answered
/// 408 (or its connection closed) without touching other connections or a download in progress.
@Suite("Whole-request timeout on a live server")
struct RequestTimeoutTests {
    /// What a client saw after it stopped sending part of its request: a status, or a close without one.
    enum Outcome: Equatable {
        case status(Int, String)
        case closedWithoutAnswer
    }

    /// Waits (blocking reads, off the pool) for the server's answer or close; the socket's receive timeout
    /// is only the fallback bound.
    static func outcome(_ client: RawHTTPClient) async -> Outcome? {
        do {
            let response = try await client.readResponse()
            return .status(response.status, response.text)
        } catch let error as RawHTTPClient.ClientError where error.description == "closed" {
            return .closedWithoutAnswer
        } catch {
            return nil
        }
    }

    static func expectTimedOut(_ outcome: Outcome?, _ name: String) {
        switch outcome {
        case .status(let status, let body)?:
            #expect(status == 408, "\(name): \(body)")
            #expect(body.contains("\"code\":\"request-timeout\"") || body.contains("\"code\": \"request-timeout\""), "\(name): \(body)")
        case .closedWithoutAnswer?:
            break
        case nil:
            Issue.record("\(name): neither answered nor closed")
        }
    }

    @Test func headWithoutItsBodyIsTimedOutAndClosed() async throws {
        try await LiveServer.with(idleTimeoutSeconds: 120, requestTimeoutSeconds: 1) { server in
            let slow = try RawHTTPClient(port: server.port)
            try await slow.send(
                "POST /v1/transactions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
            let outcome = await Self.outcome(slow)
            // Nothing was answered on this request: the answer is a 408, then the connection closes.
            #expect(outcome.map { if case .status(408, _) = $0 { true } else { false } } == true, "\(String(describing: outcome))")
            Self.expectTimedOut(outcome, "head without body")
            #expect(await slow.isClosedByPeer())
        }
    }

    @Test func partialHeadIsTimedOut() async throws {
        try await LiveServer.with(idleTimeoutSeconds: 120, requestTimeoutSeconds: 1) { server in
            let slow = try RawHTTPClient(port: server.port)
            try await slow.send("POST /v1/transactions HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            Self.expectTimedOut(await Self.outcome(slow), "partial head")
            #expect(await slow.isClosedByPeer())
        }
    }

    @Test func trickledChunkedBodyIsTimedOutWhileOtherConnectionsWork() async throws {
        try await LiveServer.with(idleTimeoutSeconds: 120, requestTimeoutSeconds: 1) { server in
            let digest = try server.version("com.example.level1").digest
            let expected = try server.bundleBytes(digest.hex)
            // A download that waits on its reader (a small receive buffer, not read yet) across the deadline.
            let download = try RawHTTPClient(port: server.port, receiveBuffer: 4096)
            try await download.send(RawHTTPClient.get("/v1/bundles/\(digest)", ["Authorization: Bearer \(server.grant(digest.hex))"]))

            let slow = try RawHTTPClient(port: server.port)
            try await slow.send(
                "POST /v1/transactions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            let stop = Atomic<Bool>(false)
            let trickle = Task {
                // A byte at a time, until the server answers or closes (bounded only as a fallback).
                for _ in 0..<600 where !stop.load(ordering: .relaxed) {
                    do { try await slow.send("1\r\n{\r\n") } catch { return }
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            let outcome = await Self.outcome(slow)
            stop.store(true, ordering: .relaxed)
            await trickle.value
            Self.expectTimedOut(outcome, "trickled chunked body")

            // Other connections are unaffected: a new request works, and the download finishes intact.
            let other = try RawHTTPClient(port: server.port)
            #expect(try await other.request(RawHTTPClient.get("/healthz")).status == 200)
            let downloaded = try await download.readResponse()
            #expect(downloaded.status == 200)
            #expect(downloaded.body == expected)
        }
    }

    @Test func timelyRequestsOnAKeptAliveConnectionAreNotTimedOut() async throws {
        try await LiveServer.with(idleTimeoutSeconds: 120, requestTimeoutSeconds: 1) { server in
            let client = try RawHTTPClient(port: server.port)
            #expect(try await client.request(RawHTTPClient.get("/healthz")).status == 200)
            // An idle connection between requests is the idle timeout's business, not the request deadline's:
            // a connection whose request ended is still open after another full request was answered elsewhere.
            let slow = try RawHTTPClient(port: server.port)
            try await slow.send("POST /v1/transactions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n")
            Self.expectTimedOut(await Self.outcome(slow), "witness")
            #expect(try await client.request(RawHTTPClient.get("/healthz")).status == 200)
        }
    }
}
