@testable import DepotServerTestSupport
import DepotCore
import Foundation
import Testing

@Suite("Shutdown and idle connections around running downloads")
struct LifecycleTests {
    @Test func gracefulShutdownLetsARunningDownloadFinish() async throws {
        try await LiveServer.with { server in
            let digest = try server.version("com.example.level1").digest
            let expected = try server.bundleBytes(digest.hex)
            let client = try RawHTTPClient(port: server.port, receiveBuffer: 16 * 1024)
            try await client.send(RawHTTPClient.get("/v1/bundles/\(digest)", ["Authorization: Bearer \(server.grant(digest.hex))"]))
            // The server has started answering before it is asked to stop.
            try await client.awaitAnswerStart()
            let shutdown = Task { await server.shutdown() }
            let response = try await client.readResponseSlowly(pause: .milliseconds(2))
            #expect(response.status == 200)
            #expect(response.body == expected)
            #expect(await client.isClosedByPeer())
            await shutdown.value
        }
    }

    @Test func idleTimeoutClosesIdleConnectionsButNotSlowDownloads() async throws {
        try await LiveServer.with(idleTimeoutSeconds: 1) { server in
            let digest = try server.version("com.example.level1").digest
            let expected = try server.bundleBytes(digest.hex)
            // A download slower than the idle timeout still completes.
            let slow = try RawHTTPClient(port: server.port, receiveBuffer: 16 * 1024)
            try await slow.send(RawHTTPClient.get("/v1/bundles/\(digest)", ["Authorization: Bearer \(server.grant(digest.hex))"]))
            let started = ContinuousClock.now
            let response = try await slow.readResponseSlowly(pause: .milliseconds(3))
            #expect(ContinuousClock.now - started > .seconds(1))
            #expect(response.body == expected)
            // An idle connection is closed once the timeout passes.
            let idle = try RawHTTPClient(port: server.port)
            #expect(await idle.isClosedByPeer())
        }
    }
}
