@testable import DepotServerTestSupport
@testable import DepotOrigin
import DepotSettings
import DepotTestSupport
import Foundation
import Testing

@testable import DepotServer

/// `server.maxConnectionsPerAddress` and `server.maxConnections` on a live server: a connection over a limit
/// is answered 429 or 503 and closed, other clients are served, and a closed connection gives its place back.
/// The test configuration trusts 127.0.0.1 as a proxy (held to the total only); other loopback addresses
/// stand for other clients.
@Suite("Connection limits on a live server")
struct ConnectionLimitTests {
    static func expectServed(_ client: RawHTTPClient, _ name: String) async throws {
        let answer = try await client.request(RawHTTPClient.get("/healthz"))
        #expect(answer.status == 200, "\(name): \(answer.text)")
    }

    static func expectRefused(_ client: RawHTTPClient, status: Int, code: String) async throws {
        let answer = try await client.readResponse()
        #expect(answer.status == status, "\(answer.text)")
        #expect(answer.text.contains("\"code\":\"\(code)\""), "\(answer.text)")
        #expect(answer.value("Connection") == "close")
        #expect(await client.isClosedByPeer())
    }

    @Test func anAddressOverItsLimitIsRefusedWhileOthersAreServed() async throws {
        try await LiveServer.with(serverSettings: #""maxConnectionsPerAddress": 2"#) { server in
            let first = try RawHTTPClient(port: server.port, source: "127.0.0.2")
            let second = try RawHTTPClient(port: server.port, source: "127.0.0.2")
            try await Self.expectServed(first, "first")
            try await Self.expectServed(second, "second")

            let third = try RawHTTPClient(port: server.port, source: "127.0.0.2")
            try await Self.expectRefused(third, status: 429, code: "too-many-connections-from-address")
            try await Self.expectServed(try RawHTTPClient(port: server.port, source: "127.0.0.3"), "another address")
            try await Self.expectServed(try RawHTTPClient(port: server.port), "the trusted proxy")
            #expect(server.application.connections.counts.refusedPerAddress == 1)

            // A closed connection gives its place back.
            first.cut()
            try await eventually("the closed connection's place to be given back", within: 120) {
                server.application.connections.counts.open == 1
            }
            try await Self.expectServed(try RawHTTPClient(port: server.port, source: "127.0.0.2"), "after a close")
            try await Self.expectServed(second, "the second, still open")
        }
    }

    /// Behind a carrier's NAT many buyers share one address: by default no limit per address applies (the old
    /// default of 256 refused the 257th).
    @Test func byDefaultManyConnectionsFromOneAddressAreAllServed() async throws {
        // An hour of idle timeout: a loaded machine can take minutes to open and serve 300 connections one by one, and
        // the first ones must still be open at the end.
        try await LiveServer.with(idleTimeoutSeconds: 3600) { server in
            #expect(server.application.configuration.http.maxConnectionsPerAddress == nil)
            var held: [RawHTTPClient] = []
            for index in 0..<300 {
                let client = try RawHTTPClient(port: server.port, source: "127.0.0.2")
                try await Self.expectServed(client, "connection \(index)")
                held.append(client)
            }
            #expect(held.count == 300)
            #expect(server.application.connections.counts.open >= 300)
            #expect(server.application.connections.counts.refusedPerAddress == 0)
        }
    }

    @Test func aFullServerRefusesEveryNewConnectionUntilOneCloses() async throws {
        try await LiveServer.with(serverSettings: #""maxConnections": 3"#) { server in
            var held: [RawHTTPClient] = []
            for index in 0..<3 {
                let client = try RawHTTPClient(port: server.port, source: "127.0.0.\(index + 4)")
                try await Self.expectServed(client, "held \(index)")
                held.append(client)
            }
            try await Self.expectRefused(try RawHTTPClient(port: server.port), status: 503, code: "too-many-connections")
            try await Self.expectRefused(
                try RawHTTPClient(port: server.port, source: "127.0.0.9"), status: 503, code: "too-many-connections")
            #expect(server.application.connections.counts.refusedTotal == 2)
            try await Self.expectServed(held[1], "a held connection")

            held[0].cut()
            try await eventually("the closed connection's place to be given back", within: 120) {
                server.application.connections.counts.open == 2
            }
            try await Self.expectServed(try RawHTTPClient(port: server.port), "after a close")
        }
    }
}
