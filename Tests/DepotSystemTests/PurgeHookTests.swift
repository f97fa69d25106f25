@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotServer
import DepotServices
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The purge hook (`edge.purge`): a real command and a real HTTP receiver get the purge tags of a publish, a
/// rollback and a refund, the same tags the origin puts in its answers; failures are retried, a hook that
/// hangs is killed at its time limit, and none of it holds up or fails the change.
@Suite("Purge hook")
struct PurgeHookTests {
    static let level1 = "com.example.level1"

    /// What the origin's own answers said, to compare the purges with.
    struct Expected {
        var bundleTag: String
        var digest: String
        var rolledBackTag: String
        var rolledBackDigest: String
        var transactionTag: String
    }

    /// Stages and publishes level1 1.1, rolls back to 1.0, then refunds a purchase; after each change waits
    /// for the hook to have received `received() + 1` purges. Returns the tags read from the origin's answers.
    static func publishRollBackAndRefund(_ server: LiveServer, received: () throws -> Int) async throws -> Expected {
        let client = try RawHTTPClient(port: server.port)
        let (key, _) = try await PublisherRequests.makeKey(server.application.ledger)
        let directory = try PublisherRequests.writePack(
            in: server.scratch, at: "uploads/level1-1.1", productId: level1, version: "1.1",
            publishedAt: "2026-04-01T09:00:00Z", files: ["notes.txt": Array("version 1.1".utf8)])
        let staged = try await server.application.stager.stage(directory: directory, .init(productId: level1))
        let original = try server.version(level1)

        let publish = try await client.request(
            PublisherRequests.request("POST", "/v1/publisher/products/\(level1)/versions/1.1/publish", key: key))
        #expect(publish.status == 200, "\(publish.text)")
        try await eventually("the publish's purge") { try received() >= 1 }
        // The tags the origin puts on the new version's bundle and on the lists.
        let bundle = try await RawHTTPClient(port: server.port).request(
            RawHTTPClient.get("/v1/bundles/\(staged.content.digest)?grant=\(server.grant(staged.content.digest.hex))", method: "HEAD"),
            head: true)
        #expect(bundle.status == 200)
        let bundleTags = (bundle.value("Surrogate-Key") ?? "").split(separator: " ").map(String.init)
        let bundleTag = try #require(bundleTags.first { $0.hasPrefix("version:") })
        #expect(try await client.request(RawHTTPClient.get("/products_v1.json")).value("Surrogate-Key") == "product-lists")
        let oldBundle = try await RawHTTPClient(port: server.port).request(
            RawHTTPClient.get("/v1/bundles/\(original.digest)?grant=\(server.grant(original.digest.hex))", method: "HEAD"), head: true)
        let rolledBackTag = try #require(
            (oldBundle.value("Surrogate-Key") ?? "").split(separator: " ").map(String.init).first { $0.hasPrefix("version:") })

        let rollback = try await client.request(
            PublisherRequests.request("POST", "/v1/publisher/products/\(level1)/versions/1.0/publish", key: key))
        #expect(rollback.status == 200, "\(rollback.text)")
        #expect(try JSONAnswer(rollback)["rollback"]?.value as? Bool == true)
        try await eventually("the rollback's purge") { try received() >= 2 }

        // A purchase whose grant an edge checks: the check's answer carries the purchase's tag.
        let (jws, id) = try PurchaseSteps.sign(server, product: level1, type: "Non-Consumable")
        let redeemed = try await client.request(PurchaseRequests.redeem(jws))
        let url = try #require(try JSONAnswer(redeemed)["downloads.0.url"]?.string, "\(redeemed.text)")
        let check = try await client.request(RawHTTPClient.get("/v1/grants/check", ["X-Original-URI: \(url)"]))
        #expect(check.status == 204)
        let transactionTag = try #require(check.value("Surrogate-Key"))
        #expect(transactionTag.hasPrefix("transaction:") && !transactionTag.contains(id))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(
            try await PurchaseSteps.notify(client, server, type: "REFUND", id: id, signedDate: now - 1000, uuid: UUID().uuidString)
                == "revoked")
        try await eventually("the refund's purge") { try received() >= 3 }
        let refused = try await client.request(RawHTTPClient.get("/v1/grants/check", ["X-Original-URI: \(url)"]))
        #expect(refused.status == 403)
        return Expected(
            bundleTag: bundleTag, digest: staged.content.digest.hex, rolledBackTag: rolledBackTag, rolledBackDigest: original.digest.hex,
            transactionTag: transactionTag)
    }

    /// The three purges the scenario must produce, in order.
    static func check(_ purges: [ReceivedPurge], _ expected: Expected) {
        #expect(purges.count == 3, "\(purges)")
        guard purges.count == 3 else { return }
        #expect(purges[0].tags == ["product-lists", expected.bundleTag])
        #expect(purges[0].paths == ["/products_v1.json", "/v1/products", "/v1/bundles/\(expected.digest)"])
        #expect(purges[0].reason == "published \(expected.bundleTag)")
        #expect(purges[1].tags == ["product-lists", expected.rolledBackTag])
        #expect(purges[1].paths == ["/products_v1.json", "/v1/products", "/v1/bundles/\(expected.rolledBackDigest)"])
        #expect(purges[1].reason == "rolled-back \(expected.rolledBackTag)")
        #expect(purges[2].tags == [expected.transactionTag])
        #expect(purges[2].paths == [])
        #expect(purges[2].reason == "revoked \(expected.transactionTag)")
    }

    @Test func aCommandGetsTheTagsOfAPublishARollbackAndARefund() async throws {
        let hookDirectory = try ScratchDirectory(#function)
        defer { hookDirectory.remove() }
        let script = try PurgeScript(in: hookDirectory)
        try await LiveServer.with(settings: "\"edge\": {\"purge\": {\"command\": [\"\(script.path)\"], \"backoffMilliseconds\": 20}}") {
            server in
            let expected = try await Self.publishRollBackAndRefund(server) { try script.runs().count }
            let runs = try script.runs().map(\.purge)
            Self.check(runs, expected)
            for run in runs {
                // The tags are the arguments too, and the reason is in the environment.
                #expect(run.arguments == run.tags)
                #expect(run.extra == run.reason)
            }
            // The script records a purge before it exits; the worker counts it once the exit is seen.
            try await eventually("the last purge counted as sent") {
                server.application.purges.counters.sentPurges == 3
            }
            #expect(server.application.purges.counters.failedAttempts == 0)
        }
    }

    @Test func anHTTPReceiverGetsTheTagsOfAPublishARollbackAndARefund() async throws {
        let receiver = PurgeReceiver()
        try await receiver.run { url in
            let settings = """
                "edge": {"purge": {"url": "\(url)", "headers": {"Authorization": "Bearer purge-token"}}}
                """
            try await LiveServer.with(settings: settings) { server in
                let expected = try await Self.publishRollBackAndRefund(server) { receiver.purges.count }
                Self.check(receiver.purges, expected)
                #expect(receiver.purges.allSatisfy { $0.extra == "Bearer purge-token" })
                try await eventually("the last purge counted as sent") {
                    server.application.purges.counters.sentPurges == 3
                }
            }
        }
    }

    @Test func aReceiverThatFailsTwiceIsRetriedUntilItTakesThePurge() async throws {
        let receiver = PurgeReceiver(failures: 2)
        try await receiver.run { url in
            let settings = """
                "edge": {"purge": {"url": "\(url)", "retries": 3, "backoffMilliseconds": 20}}
                """
            try await LiveServer.with(settings: settings) { server in
                let client = try RawHTTPClient(port: server.port)
                let (key, _) = try await PublisherRequests.makeKey(server.application.ledger)
                let directory = try PublisherRequests.writePack(
                    in: server.scratch, at: "uploads/level1-1.1", productId: Self.level1, version: "1.1",
                    publishedAt: "2026-04-01T09:00:00Z", files: ["notes.txt": Array("version 1.1".utf8)])
                _ = try await server.application.stager.stage(directory: directory, .init(productId: Self.level1))
                let publish = try await client.request(
                    PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/1.1/publish", key: key))
                // The publish is answered whatever the hook does.
                #expect(publish.status == 200)
                let counters = server.application.purges.counters
                try await eventually("the purge sent on the third attempt") { counters.sentPurges == 1 }
                #expect(counters.failedAttempts == 2)
                #expect(counters.abandonedPurges == 0)
                let purges = receiver.purges
                #expect(purges.count == 3)
                #expect(Set(purges.map(\.tags)).count == 1, "every attempt sends the same purge")
                #expect(purges.first?.tags == ["product-lists", "version:com.example.level1@1.1"])
            }
        }
    }

    @Test func aHookThatHangsIsKilledWithItsChildrenAndRetriedWithoutHoldingUpPublishes() async throws {
        let hookDirectory = try ScratchDirectory(#function)
        defer { hookDirectory.remove() }
        let children = hookDirectory.path + "/children"
        // The script starts a child that would sleep for ten minutes and waits for it.
        let script = try PurgeScript(in: hookDirectory, behaviour: "sleep 600 &\necho $! >> \"\(children)\"\nwait")
        let settings = """
            "edge": {"purge": {"command": ["\(script.path)"], "timeoutSeconds": 1, "retries": 1, "backoffMilliseconds": 20}}
            """
        try await LiveServer.with(settings: settings) { server in
            let client = try RawHTTPClient(port: server.port)
            let (key, _) = try await PublisherRequests.makeKey(server.application.ledger)
            let directory = try PublisherRequests.writePack(
                in: server.scratch, at: "uploads/level1-1.1", productId: Self.level1, version: "1.1",
                publishedAt: "2026-04-01T09:00:00Z", files: ["notes.txt": Array("version 1.1".utf8)])
            _ = try await server.application.stager.stage(directory: directory, .init(productId: Self.level1))
            let publish = try await client.request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/1.1/publish", key: key))
            #expect(publish.status == 200)
            try await eventually("the hook running") { try script.runs().count >= 1 }
            // While the hook hangs, another change is answered at once and its purge waits in the queue.
            let rollback = try await client.request(
                PublisherRequests.request("POST", "/v1/publisher/products/\(Self.level1)/versions/1.0/publish", key: key))
            #expect(rollback.status == 200)

            let counters = server.application.purges.counters
            try await eventually("both purges given up on") { counters.abandonedPurges == 2 }
            #expect(counters.failedAttempts == 4)
            #expect(counters.sentPurges == 0)
            let runs = try script.runs()
            #expect(runs.count == 4, "each purge was tried twice")
            #expect(
                runs.map(\.purge.tags) == [
                    ["product-lists", "version:com.example.level1@1.1"], ["product-lists", "version:com.example.level1@1.1"],
                    ["product-lists", "version:com.example.level1@1.0"], ["product-lists", "version:com.example.level1@1.0"],
                ])
            // Every script and every child it started was killed.
            let childPids = try String(contentsOfFile: children, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
            #expect(childPids.count == 4)
            for pid in childPids + runs.map(\.pid) {
                try await eventually("process \(pid) gone") { !Self.isRunning(pid) }
            }
        }
    }

    /// Whether a process runs (a zombie waiting for a parent that does not reap it counts as gone).
    static func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
        return state != "Z" && state != "X"
    }
}

/// `deploy/nginx/purge-nginx-cache.sh` as the purge command of a live Depot behind a real nginx edge: a
/// publish drops the edge's cached product lists at once, without waiting for their lifetime.
@Suite("Purge hook: nginx edge")
struct PurgeNginxEdgeTests {
    static let secret = "edge-secret-0123456789-abcdefghijklmnop"

    @Test func aPublishDropsTheEdgesCachedProductListsThroughThePurgeScript() async throws {
        let script = URL(fileURLWithPath: NginxEdge.templatePath).deletingLastPathComponent().path + "/purge-nginx-cache.sh"
        let hookDirectory = try ScratchDirectory(#function)
        defer { hookDirectory.remove() }
        // The edge's cache directory is known once nginx runs: the hook names a link made to it then.
        let cacheLink = hookDirectory.path + "/edge-cache"
        // Lists stay fresh at the edge for a minute, so only a purge makes the edge ask the origin again.
        let settings = """
            "edge": {"fillSecrets": ["\(Self.secret)"], "purge": {"command": ["\(script)", "\(cacheLink)"], "backoffMilliseconds": 20}},
            "caching": {"productListCacheControl": "public, max-age=60, s-maxage=60"}
            """
        try await LiveServer.with(idleTimeoutSeconds: 30, settings: settings) { server in
            try await NginxEdge.with(originPort: server.port, secret: Self.secret) { edge in
                try FileManager.default.createSymbolicLink(atPath: cacheLink, withDestinationPath: edge.cacheDirectory)
                let edgeClient = Endpoint(port: edge.port)
                let before = try await edgeClient.request(RawHTTPClient.get("/v1/products"))
                #expect(before.value("X-Cache-Status") == "MISS")
                #expect(try await edgeClient.request(RawHTTPClient.get("/v1/products")).value("X-Cache-Status") == "HIT")
                let bundlePath = "/v1/bundles/\(try server.version(PurgeHookTests.level1).digest)"
                let bundle = try await edgeClient.request(
                    RawHTTPClient.get(
                        bundlePath + "?grant=\(server.grant(try server.version(PurgeHookTests.level1).digest.hex))", ["Range: bytes=0-99"]))
                #expect(bundle.status == 206)

                let client = Endpoint(port: server.port)
                let (key, _) = try await PublisherRequests.makeKey(server.application.ledger)
                let directory = try PublisherRequests.writePack(
                    in: server.scratch, at: "uploads/level1-1.1", productId: PurgeHookTests.level1, version: "1.1",
                    publishedAt: "2026-04-01T09:00:00Z", files: ["notes.txt": Array("version 1.1".utf8)])
                let staged = try await server.application.stager.stage(directory: directory, .init(productId: PurgeHookTests.level1))
                let publish = try await client.request(
                    PublisherRequests.request("POST", "/v1/publisher/products/\(PurgeHookTests.level1)/versions/1.1/publish", key: key))
                #expect(publish.status == 200, "\(publish.text)")
                let counters = server.application.purges.counters
                try await eventually("the purge script run") { counters.sentPurges + counters.abandonedPurges >= 1 }
                #expect(counters.sentPurges == 1)

                // Within the lists' minute at the edge, the edge asks the origin again and serves the new version.
                let after = try await edgeClient.request(RawHTTPClient.get("/v1/products"))
                #expect(after.value("X-Cache-Status") == "MISS")
                #expect(after.text.contains(staged.content.digest.hex))
                #expect(try await edgeClient.request(RawHTTPClient.get("/v1/products")).value("X-Cache-Status") == "HIT")
            }
        }
    }
}
