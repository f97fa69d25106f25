@testable import DepotServerTestSupport
import DepotClient
import DepotCore
import DepotServer
import DepotTestSupport
import DepotTrust
import Foundation
import Synchronization
import Testing

/// DepotClient against a live Depot: downloads broken off, paused, resumed across validators and expired grants.
@Suite("DepotClient resumes downloads")
struct ClientResumeTests {
    static let level1 = LiveServer.standardPacks[0]

    @Test func aDownloadCutHalfwayByTheProxyResumesAndEndsByteIdentical() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        try await LiveServer.with { server in
            let proxy = try await CuttingProxy.start(
                python, upstream: server.port, mode: .cut, limit: 3 << 20, logPath: server.scratch.path + "/proxy.log")
            defer { proxy.stop() }
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let out = server.scratch.path + "/out"
            let delivery = try await ClientTestSupport.client(port: proxy.port).delivery(of: jws, into: URL(fileURLWithPath: out))
            let digest = try #require(delivery.downloads.first?.download.digest)
            let outcome = try await delivery.run()

            #expect(outcome.finishStoreKitTransaction)
            #expect(outcome.transaction.id == id)
            #expect(outcome.transaction.state == "finished")
            #expect(try ClientTestSupport.contents(of: out + "/com.example.level1") == Self.level1.files)
            #expect(ClientTestSupport.names(in: out) == ["com.example.level1"])

            let requests = try await ClientTestSupport.bundleRequests(proxy, count: 2)
            try #require(requests.count == 2, "\(requests)")
            #expect(requests[0]["spoiled"] as? String == "cut")
            #expect(requests[0]["range"] == nil || requests[0]["range"] is NSNull)
            let resumedAt = try #require(ClientTestSupport.rangeStart(requests[1]))
            #expect(resumedAt > 0 && resumedAt < 3 << 20)
            #expect(requests[1]["ifRange"] as? String == "\"\(digest)\"")
            #expect(requests[1]["status"] as? Int == 206)
        }
    }

    @Test func anExpiredGrantIsRenewedByRedeemingAgainAndTheDownloadContinues() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        // The grant must still hold when the first request arrives, and expire while that request stalls. On a
        // machine so loaded that the first request comes after the grant's end, the scenario runs again with a
        // longer grant.
        for lifetime: Int64 in [6, 30, 120] {
            if try await Self.expiredGrantScenario(python, grantLifetime: lifetime) { return }
        }
        Issue.record("the first request never arrived within its grant's lifetime (120 s at the longest)")
    }

    /// The download of `anExpiredGrantIsRenewedByRedeemingAgainAndTheDownloadContinues` with a grant of
    /// `grantLifetime` seconds; false, with nothing checked, when the first request came after the grant's end.
    static func expiredGrantScenario(_ python: String, grantLifetime: Int64) async throws -> Bool {
        var ran = false
        try await LiveServer.with { server in
            let proxy = try await CuttingProxy.start(
                python, upstream: server.port, mode: .stall, limit: 1 << 20, logPath: server.scratch.path + "/proxy.log")
            defer { proxy.stop() }
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            // The stall ends when the client gives up on it: after an app's default wait.
            let client = ClientTestSupport.client(port: proxy.port, requestTimeoutSeconds: 60)
            var offered = try #require(try await client.redeem(signedTransaction: jws).downloads.first)
            // A grant that expires while the download is stalled half-way.
            let expiresAt = DepotApplication.systemClock() + grantLifetime
            offered.url =
                "/v1/bundles/\(offered.digest)?grant="
                + server.application.grants.issue(
                    digest: try #require(BundleDigest(hex: offered.digest)), expiresAt: expiresAt, transactionId: id)
            let renewals = Mutex(0)
            let out = server.scratch.path + "/out"
            let download = try client.bundleDownload(offered, into: URL(fileURLWithPath: out)) { stale throws(DepotClientError) in
                renewals.withLock { $0 += 1 }
                let fresh = try await client.redeem(signedTransaction: jws).downloads.first { $0.digest == stale.digest }
                guard let fresh else { throw DepotClientError(.bundleMismatch, "the bundle is no longer offered") }
                return fresh
            }
            let states = Task { await download.updates().reduce(into: [DownloadState]()) { $0.append($1.state) } }
            let run = Task { try await download.run() }

            try await eventually("the first bytes", within: 120) { download.current.bytesWritten > 0 }
            if try ClientTestSupport.bundleRequests(proxy).first?["status"] as? Int == 403 {
                // Refused already: the proxy's one stall is spent, and the renewed download runs to its end.
                _ = try? await run.value
                return
            }
            ran = true
            try await eventually("the grant to expire", within: 120) { DepotApplication.systemClock() > expiresAt }
            download.pause()
            try await eventually("the download to pause", within: 120) { download.current.state == .paused }
            download.resume()
            let folder = try await run.value

            #expect(renewals.withLock { $0 } == 1)
            #expect(try ClientTestSupport.contents(of: folder.path) == Self.level1.files)
            let requests = try await ClientTestSupport.bundleRequests(proxy, count: 3)
            try #require(requests.count == 3, "\(requests)")
            #expect(requests[0]["spoiled"] as? String == "stall")
            #expect(requests[1]["status"] as? Int == 403)
            let resumedAt = try #require(ClientTestSupport.rangeStart(requests[2]))
            #expect(resumedAt > 0)
            #expect(requests[2]["status"] as? Int == 206)
            let seen = await states.value
            #expect(seen.contains(.active))
            #expect(seen.contains(.paused))
            #expect(seen.last == .finished(contentURL: folder))
        }
        return ran
    }

    @Test func aChangedETagRestartsFromZeroInsteadOfSplicing() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        try await LiveServer.with { server in
            let proxy = try await CuttingProxy.start(
                python, upstream: server.port, mode: .pass, limit: 0, logPath: server.scratch.path + "/proxy.log")
            defer { proxy.stop() }
            let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let client = ClientTestSupport.client(port: proxy.port)
            let offered = try #require(try await client.redeem(signedTransaction: jws).downloads.first)
            let out = server.scratch.path + "/out"
            // Bytes of some other bundle, with that bundle's validator.
            let partial = out + "/com.example.level1." + offered.digest.prefix(16) + ".partial"
            let otherTag = "\"" + String(repeating: "0", count: 64) + "\""
            try server.scratch.write(
                "out/com.example.level1." + offered.digest.prefix(16) + ".partial", [UInt8](repeating: 0xAB, count: 1 << 20))
            try server.scratch.write("out/com.example.level1." + offered.digest.prefix(16) + ".partial.etag", otherTag)

            let folder = try await client.bundleDownload(offered, into: URL(fileURLWithPath: out)).run()

            #expect(try ClientTestSupport.contents(of: folder.path) == Self.level1.files)
            #expect(!FileManager.default.fileExists(atPath: partial))
            let requests = try await ClientTestSupport.bundleRequests(proxy, count: 1)
            try #require(requests.count == 1, "\(requests)")
            #expect(ClientTestSupport.rangeStart(requests[0]) == 1 << 20)
            #expect(requests[0]["ifRange"] as? String == otherTag)
            #expect(requests[0]["status"] as? Int == 200)
        }
    }

    @Test func cancelStopsTheDownloadAndRemovesThePartialFile() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        try await LiveServer.with { server in
            let proxy = try await CuttingProxy.start(
                python, upstream: server.port, mode: .stall, limit: 1 << 20, logPath: server.scratch.path + "/proxy.log")
            defer { proxy.stop() }
            let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let client = ClientTestSupport.client(port: proxy.port)
            let offered = try #require(try await client.redeem(signedTransaction: jws).downloads.first)
            let out = server.scratch.path + "/out"
            let download = try client.bundleDownload(offered, into: URL(fileURLWithPath: out))
            let run = Task { try await download.run() }
            try await eventually("the first bytes", within: 120) { download.current.bytesWritten > 0 }
            #expect(!ClientTestSupport.names(in: out).isEmpty)
            download.cancel()
            await #expect(throws: DepotClientError.self) { try await run.value }
            #expect(download.current.state == .cancelled)
            #expect(ClientTestSupport.names(in: out).isEmpty)
        }
    }
}
