@testable import DepotServerTestSupport
import DepotCore
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// `GET /metrics` on a live server: traffic of known shape, then the scrape parsed (strictly, in Swift) and
/// every counter checked against what was done.
@Suite("Prometheus metrics on a live server")
struct MetricsTests {
    static let edgeSecret = "edge-fill-secret-for-the-metrics-test"
    static let scrapeToken = "scrape-only-token"

    /// The parsed scrape, with the admin token.
    static func scrape(_ server: LiveServer, token: String = LiveServer.adminToken) async throws -> PrometheusText {
        let client = try RawHTTPClient(port: server.port)
        let response = try await client.request(RawHTTPClient.get("/metrics", ["Authorization: Bearer \(token)"]))
        try #require(response.status == 200, "\(response.text)")
        #expect(response.value("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        return try PrometheusText(response.text)
    }

    /// Scrapes until `condition` holds (the byte path counts an answer once its last byte was handed to the
    /// kernel, which may come just after the client read it); a generous bound, never a fixed wait.
    static func scrape(
        _ server: LiveServer, until condition: (PrometheusText) -> Bool, bound: Duration = .seconds(60)
    ) async throws -> PrometheusText {
        let start = ContinuousClock.now
        while true {
            let metrics = try await scrape(server)
            if condition(metrics) || ContinuousClock.now - start > bound { return metrics }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func countersMatchTheTrafficThatWasSent() async throws {
        let settings = "\"edge\": {\"fillSecrets\": [\"\(Self.edgeSecret)\"]}"
        try await LiveServer.with(settings: settings) { server in
            let client = try RawHTTPClient(port: server.port)
            for _ in 0..<3 { #expect(try await client.request(RawHTTPClient.get("/v1/products")).status == 200) }
            #expect(try await client.request(RawHTTPClient.get("/no/such/route")).status == 404)

            // A redeem that verifies, one that does not, a finish with a wrong token, a finish that finishes.
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let redeemed = try PurchaseSteps.object(
                try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}"))
            let parts = jws.split(separator: ".")
            let forged = "\(parts[0]).\(parts[1]).\(String(parts[2].reversed()))"
            let refused = try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(forged)\"}")
            #expect([400, 403].contains(refused.status), "\(refused.text)")
            let refusedCode = try #require(
                (try PurchaseSteps.object(refused)["error"] as? [String: Any])?["code"] as? String)
            let token = try #require((redeemed["transaction"] as? [String: Any])?["finishToken"] as? String)
            let download = try #require((redeemed["downloads"] as? [[String: Any]])?.first)
            let url = try #require(download["url"] as? String)
            let digest = try #require(download["digest"] as? String)
            let size = try #require(download["size"] as? Int)
            let version = try #require(download["version"] as? String)

            // The bundle downloaded whole, then a range of it, under the purchase's grant.
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            let ranged = try await client.request(RawHTTPClient.get(url, ["Range: bytes=100-1123"]))
            #expect(ranged.status == 206 && ranged.body.count == 1024)
            // And once by an edge filling its cache.
            let edge = try await client.request(
                RawHTTPClient.get("/v1/bundles/\(digest)", ["X-Depot-Edge-Secret: \(Self.edgeSecret)"]))
            #expect(edge.status == 200 && edge.body.count == size)

            let delivered = "[{\"contentId\": \"com.example.level1\", \"digest\": \"\(digest)\"}]"
            let wrong = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish", "{\"finishToken\": \"f1.test.AAAA\", \"delivered\": \(delivered)}")
            #expect(wrong.status == 404)
            let finished = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish", "{\"finishToken\": \"\(token)\", \"delivered\": \(delivered)}")
            #expect(finished.status == 200, "\(finished.text)")
            // The app finishes again (its answer was lost): answered the same, and no second delivery is counted.
            let again = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish", "{\"finishToken\": \"\(token)\", \"delivered\": \(delivered)}")
            #expect(again.status == 200, "\(again.text)")

            let bytes = Double(size + 1024)
            let grant = ["via": "grant"]
            let metrics = try await Self.scrape(server) { $0.value("depot_bundle_bytes_total", grant) == bytes }
            #expect(metrics.types["depot_http_requests_total"] == "counter")
            #expect(metrics.types["depot_http_request_duration_seconds"] == "histogram")
            #expect(metrics.types["depot_downloads_in_flight"] == "gauge")
            #expect(metrics.value("depot_http_requests_total", ["route": "/v1/products", "method": "GET", "status": "200"]) == 3)
            #expect(
                metrics.value("depot_http_requests_total", ["route": "unmatched", "method": "GET", "status": "404"]) == 1,
                "\(metrics.samples("depot_http_requests_total"))")
            #expect(metrics.value("depot_http_requests_total", ["route": "/v1/transactions", "method": "POST", "status": "200"]) == 1)
            #expect(
                metrics.value(
                    "depot_http_requests_total", ["route": "/v1/transactions", "method": "POST", "status": String(refused.status)]) == 1)
            let finishRoute = "/v1/transactions/{id}/finish"
            #expect(metrics.value("depot_http_requests_total", ["route": finishRoute, "method": "POST", "status": "404"]) == 1)
            #expect(metrics.value("depot_http_requests_total", ["route": finishRoute, "method": "POST", "status": "200"]) == 2)
            #expect(metrics.value("depot_http_request_duration_seconds_count", ["route": "/v1/products", "method": "GET"]) == 3)

            #expect(metrics.value("depot_redeems_total", ["outcome": "ok"]) == 1)
            #expect(metrics.value("depot_redeems_total", ["outcome": refusedCode]) == 1)
            #expect(metrics.value("depot_verification_failures_total", ["code": refusedCode]) == 1)
            #expect(metrics.samples("depot_verification_failures_total").count == 1)
            #expect(metrics.value("depot_finishes_total", ["outcome": "ok"]) == 2)
            let level = ["content": "com.example.level1", "version": version]
            #expect(metrics.value("depot_version_offers_total", level) == 1)
            #expect(metrics.value("depot_version_deliveries_total", level) == 1)
            #expect(metrics.value("depot_finishes_total", ["outcome": "unknown-transaction"]) == 1)

            #expect(metrics.value("depot_bundle_responses_total", grant) == 2)
            #expect(metrics.value("depot_bundle_bytes_total", grant) == bytes)
            #expect(metrics.value("depot_bundle_responses_total", ["via": "edge"]) == 1)
            #expect(metrics.value("depot_bundle_bytes_total", ["via": "edge"]) == Double(size))
            #expect(metrics.value("depot_downloads_in_flight") == 0)

            // Both standard packs were built at start; each finish that reached the ledger was timed once (the repeated
            // one found the transaction finished before).
            #expect(metrics.value("depot_bundle_build_duration_seconds_count", ["kind": "full"]) == 2)
            #expect(metrics.value("depot_ledger_operation_duration_seconds_count", ["operation": "finish"]) == 1)
            #expect((metrics.value("depot_ledger_operation_duration_seconds_count", ["operation": "recordRedemption"]) ?? 0) >= 1)
            #expect(metrics.value("depot_apple_outbox_jobs", ["state": "pending"]) == 0)
            #expect(metrics.value("depot_apple_outbox_jobs", ["state": "failed"]) == 0)
            #expect(metrics.value("depot_purge_queue_depth") == 0)
            #expect(metrics.value("depot_purges_total", ["outcome": "queued"]) == 0)
            // The scrape's own connection is open; the test's client and every scrape were admitted.
            #expect((metrics.value("depot_connections_open") ?? 0) >= 1)
            #expect((metrics.value("depot_connections_total", ["outcome": "admitted"]) ?? 0) >= 2)
            #expect(metrics.value("depot_connections_total", ["outcome": "refused_total"]) == 0)
            #expect(metrics.value("depot_connections_total", ["outcome": "refused_per_address"]) == 0)
        }
    }

    /// Answers written below Hummingbird count in the same family as routed ones: every status, HEADs and refusals
    /// too, and the 400 given to bytes that are no request (route `unmatched`, method `other`).
    @Test func bytePathAnswersAreCountedByRouteMethodAndStatus() async throws {
        try await LiveServer.with { server in
            let version = try server.version("com.example.level1")
            let path = "/v1/bundles/\(version.digest)"
            let grant = "Authorization: Bearer \(server.grant(version.digest.hex))"
            let client = try RawHTTPClient(port: server.port)
            var expected: [[String: String]: Double] = [:]
            func sent(
                _ request: String, method: String, route: String = "/v1/bundles/{digest}", head: Bool = false, status: Int
            ) async throws {
                let response = try await client.request(request, head: head)
                #expect(response.status == status, "\(request): \(response.text)")
                expected[["route": route, "method": method, "status": String(status)], default: 0] += 1
            }
            try await sent(RawHTTPClient.get(path, [grant]), method: "GET", status: 200)
            try await sent(RawHTTPClient.get(path, [grant]), method: "GET", status: 200)
            try await sent(RawHTTPClient.get(path, [grant, "Range: bytes=0-99"]), method: "GET", status: 206)
            try await sent(RawHTTPClient.get(path, [grant], method: "HEAD"), method: "HEAD", head: true, status: 200)
            try await sent(RawHTTPClient.get(path, [grant, "If-None-Match: *"]), method: "GET", status: 304)
            try await sent(RawHTTPClient.get(path), method: "GET", status: 401)
            try await sent(RawHTTPClient.get(path, [], method: "HEAD"), method: "HEAD", head: true, status: 401)
            let beyond = "Range: bytes=\(version.size + 10)-"
            try await sent(RawHTTPClient.get(path, [grant, beyond]), method: "GET", status: 416)
            let unknown = String(repeating: "0", count: 64)
            try await sent(
                RawHTTPClient.get("/v1/bundles/\(unknown)", ["Authorization: Bearer \(server.grant(unknown))"]),
                method: "GET", status: 404)
            try await sent(RawHTTPClient.get("/v1/bundles/not-a-digest", [grant]), method: "GET", status: 404)
            // Bytes that are no HTTP request: 400, and the connection closes.
            let garbage = try RawHTTPClient(port: server.port)
            #expect(try await garbage.request("\u{1}\u{2} nonsense\r\n\r\n").status == 400)
            expected[["route": "unmatched", "method": "other", "status": "400"], default: 0] += 1

            let metrics = try await Self.scrape(server) { metrics in
                expected.allSatisfy { metrics.value("depot_http_requests_total", $0.key) == $0.value }
            }
            for (labels, count) in expected {
                #expect(
                    metrics.value("depot_http_requests_total", labels) == count,
                    "\(labels): \(metrics.samples("depot_http_requests_total"))")
            }
            // Bundle answers are counted, not timed: the histogram stays the routed path's.
            #expect(metrics.value("depot_http_request_duration_seconds_count", ["route": "/v1/bundles/{digest}", "method": "GET"]) == nil)
        }
    }

    @Test func aDownloadHeldByASlowReaderIsInFlightUntilItEnds() async throws {
        try await LiveServer.with { server in
            let version = try server.version("com.example.level1")
            let grant = server.grant(version.digest.hex)
            // A small receive buffer: the server cannot hand the 6 MiB bundle to the kernel until it is read.
            let reader = try RawHTTPClient(port: server.port, receiveBuffer: 4096)
            try await reader.send(RawHTTPClient.get("/v1/bundles/\(version.digest)?grant=\(grant)"))
            try await reader.awaitAnswerStart()
            let during = try await Self.scrape(server) { $0.value("depot_downloads_in_flight") == 1 }
            #expect(during.value("depot_downloads_in_flight") == 1)
            let response = try await reader.readResponse()
            #expect(response.status == 200 && Int64(response.body.count) == version.size)
            let after = try await Self.scrape(server) { $0.value("depot_downloads_in_flight") == 0 }
            #expect(after.value("depot_downloads_in_flight") == 0)
        }
    }

    @Test func connectionsOpenAndRefusedAreCounted() async throws {
        // 127.0.0.1 is a trusted proxy in the test configuration (held to the total only); 127.0.0.2 is a client.
        try await LiveServer.with(serverSettings: #""maxConnectionsPerAddress": 1"#) { server in
            let held = try RawHTTPClient(port: server.port, source: "127.0.0.2")
            #expect(try await held.request(RawHTTPClient.get("/healthz")).status == 200)
            let refused = try RawHTTPClient(port: server.port, source: "127.0.0.2")
            #expect(try await refused.readResponse().status == 429)
            let metrics = try await Self.scrape(server)
            #expect(metrics.value("depot_connections_total", ["outcome": "refused_per_address"]) == 1)
            #expect(metrics.value("depot_connections_total", ["outcome": "refused_total"]) == 0)
            // The held connection and the scrape's.
            #expect(metrics.value("depot_connections_total", ["outcome": "admitted"]) == 2)
            #expect(metrics.value("depot_connections_open") == 2)
        }
    }

    @Test func theProcessMemoryAndDescriptorsAreReported() async throws {
        try await LiveServer.with { server in
            let metrics = try await Self.scrape(server)
            #expect(metrics.types["process_resident_memory_bytes"] == "gauge")
            #expect(metrics.types["depot_heap_bytes"] == "gauge")
            #expect((metrics.value("process_resident_memory_bytes") ?? 0) > 1_048_576)
            #expect((metrics.value("depot_heap_bytes", ["state": "in_use"]) ?? 0) > 0)
            #expect(metrics.value("depot_heap_bytes", ["state": "free"]) != nil)
            // The server's ledger is an open SQLite file: its schema and caches are on SQLite's count.
            let sqlite = try #require(metrics.value("depot_sqlite_memory_bytes", ["state": "in_use"]))
            #expect(sqlite > 0)
            #expect(try #require(metrics.value("depot_sqlite_memory_bytes", ["state": "high_water"])) >= sqlite)
            // Standard input, output and error, the listener and the scrape's own connection at least.
            #expect((metrics.value("process_open_fds") ?? 0) >= 5)
        }
    }

    @Test func theEndpointAsksForATokenAndTakesTheAdminOrTheMetricsOne() async throws {
        let settings = "\"metrics\": {\"tokenSHA256\": [\"\(SharedInstances.hexSHA256(Self.scrapeToken))\"]}"
        try await LiveServer.with(settings: settings) { server in
            let client = try RawHTTPClient(port: server.port)
            let missing = try await client.request(RawHTTPClient.get("/metrics"))
            #expect(missing.status == 401)
            let error = try #require(try PurchaseSteps.object(missing)["error"] as? [String: Any])
            #expect(error["code"] as? String == "metrics-token-required")
            let wrong = try await client.request(RawHTTPClient.get("/metrics", ["Authorization: Bearer nope"]))
            #expect(wrong.status == 403)
            #expect(try await Self.scrape(server, token: Self.scrapeToken).value("depot_downloads_in_flight") == 0)
            #expect(try await Self.scrape(server).value("depot_downloads_in_flight") == 0)
            // The metrics token opens nothing else.
            let admin = try await client.request(
                RawHTTPClient.get("/v1/admin/apple-outbox", ["Authorization: Bearer \(Self.scrapeToken)"]))
            #expect(admin.status == 403)
        }
    }
}
