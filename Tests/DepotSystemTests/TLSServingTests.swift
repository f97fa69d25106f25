@testable import DepotServerTestSupport
import DepotCore
@testable import DepotOrigin
import DepotServer
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// Depot speaking HTTPS itself (`server.tls`), checked with curl trusting only the test's authority: routed answers,
/// the byte path reading bundles into buffers (whole, ranges, several ranges, resumed, HEAD, 304), the connection
/// limit's refusal, graceful shutdown and the idle timeout.
@Suite("HTTPS on Depot's own port")
struct TLSServingTests {
    @Test func redeemDownloadAndRoutedAnswersOverHTTPS() async throws {
        try await LiveServer.with(tls: try TestCertificates()) { server in
            guard let curl = CurlOverTLS(server) else { return }
            #expect(server.base.hasPrefix("https://"))
            let health = try await curl.fetch("/healthz")
            #expect(health.status == 200 && health.body == Array("ok\n".utf8))
            let products = try await curl.fetch("/v1/products")
            #expect(products.status == 200 && String(decoding: products.body, as: UTF8.self).hasPrefix("{\"products\""))

            let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let redeemed = try await curl.post("/v1/transactions", json: "{\"signedTransaction\": \"\(jws)\"}")
            #expect(redeemed.status == 200, "\(redeemed.object)")
            let download = try #require((redeemed.object["downloads"] as? [[String: Any]])?.first)
            let url = try #require(download["url"] as? String)
            let digest = try #require(download["digest"] as? String)
            let whole = try await curl.fetch(url)
            #expect(whole.status == 200)
            #expect(whole.fields["content-length"] == String(try server.bundleBytes(digest).count))
            #expect(whole.body == (try server.bundleBytes(digest)))

            // The bytes were counted as served, as on plain TCP, and no download is left in flight.
            let size = Double(try server.bundleBytes(digest).count)
            let metrics = try await Self.scrape(curl) { $0.value("depot_bundle_bytes_total", ["via": "grant"]) == size }
            #expect(metrics.value("depot_bundle_bytes_total", ["via": "grant"]) == size)
            #expect(metrics.value("depot_downloads_in_flight") == 0)
        }
    }

    @Test func rangesHeadAndNotModifiedOverHTTPS() async throws {
        try await LiveServer.with(tls: try TestCertificates()) { server in
            guard let curl = CurlOverTLS(server) else { return }
            let digest = try server.version("com.example.level1").digest
            let bytes = try server.bundleBytes(digest.hex)
            let url = "/v1/bundles/\(digest)?grant=\(server.grant(digest.hex))"

            // One range across several of the chunks the file is read in.
            let single = try await curl.fetch(url, ["-r", "100000-499999"])
            #expect(single.status == 206)
            #expect(single.fields["content-range"] == "bytes 100000-499999/\(bytes.count)")
            #expect(single.body == Array(bytes[100_000...499_999]))

            // Several ranges: multipart/byteranges, each part the exact bytes.
            let several = try await curl.fetch(url, ["-r", "0-99,300000-700000,\(bytes.count - 10)-"])
            #expect(several.status == 206)
            let type = try #require(several.fields["content-type"])
            #expect(type.hasPrefix("multipart/byteranges; boundary="))
            #expect(several.fields["content-length"] == String(several.body.count))
            let parts = try CurlOverTLS.byteRanges(several.body, contentType: type)
            #expect(parts.map(\.start) == [0, 300_000, bytes.count - 10])
            for part in parts { #expect(part.bytes == Array(bytes[part.start..<part.start + part.bytes.count])) }
            #expect(parts.map(\.bytes.count) == [100, 400_001, 10])

            // HEAD: the GET's fields, no body.
            let head = try await curl.fetch(url, ["-I"])
            #expect(head.status == 200)
            #expect(head.fields["content-length"] == String(bytes.count))
            #expect(head.written == "200 0")
            let etag = try #require(head.fields["etag"])

            // A conditional GET with the current ETag: 304, no body.
            let notModified = try await curl.fetch(url, ["-H", "If-None-Match: \(etag)"])
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)

            // A range past the end: 416 with the size.
            let unsatisfiable = try await curl.fetch(url, ["-r", "\(bytes.count + 5)-\(bytes.count + 9)"])
            #expect(unsatisfiable.status == 416)
            #expect(unsatisfiable.fields["content-range"] == "bytes */\(bytes.count)")
        }
    }

    @Test func curlResumesACutDownloadOverHTTPS() async throws {
        try await LiveServer.with(tls: try TestCertificates()) { server in
            guard let curl = CurlOverTLS(server) else { return }
            let digest = try server.version("com.example.level1").digest
            let url = "\(server.base)/v1/bundles/\(digest)?grant=\(server.grant(digest.hex))"
            let file = server.scratch.path + "/resumed.zip"
            let cut = try await ExternalTool.run(curl.curl, curl.trust + ["-f", "-r", "0-1050000", "-o", file, url])
            #expect(cut.status == 0, "\(cut.error)")
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int == 1_050_001)
            let resumed = try await ExternalTool.run(curl.curl, curl.trust + ["-f", "-C", "-", "-o", file, url])
            #expect(resumed.status == 0, "\(resumed.error)")
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file))) == (try server.bundleBytes(digest.hex)))
        }
    }

    /// A client speaking plain HTTP to the TLS port gets no HTTP answer and a closed connection, and the server
    /// goes on serving HTTPS.
    @Test func plainHTTPToTheTLSPortIsRefused() async throws {
        try await LiveServer.with(tls: try TestCertificates()) { server in
            guard let curl = CurlOverTLS(server) else { return }
            let plain = try await ExternalTool.run(
                curl.curl, ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(server.port)/healthz"])
            #expect(plain.status != 0)
            #expect(plain.output == "000")
            let raw = try RawHTTPClient(port: server.port)
            try await raw.send(RawHTTPClient.get("/healthz"))
            #expect(await raw.isClosedByPeer())
            #expect(try await curl.fetch("/healthz").status == 200)
        }
    }

    /// With TLS the gate's refusal is answered behind the handshake, so the client reads it.
    @Test func aRefusedConnectionReadsItsAnswerOverTLS() async throws {
        // The holder sends nothing: its place must outlast the request deadline however long curl takes to start.
        try await LiveServer.with(
            idleTimeoutSeconds: 600, requestTimeoutSeconds: 600, serverSettings: "\"maxConnections\": 1", tls: try TestCertificates()
        ) { server in
            guard let curl = CurlOverTLS(server) else { return }
            // A connection that holds the only place (it never starts a handshake).
            let holder = try RawHTTPClient(port: server.port)
            // Connections are admitted on the loop that accepted them: curl starts only once the holder is counted.
            try await eventually("the holder to be admitted", within: 300) {
                server.application.connections.counts.open == 1
            }
            let refused = try await curl.fetch("/healthz")
            #expect(refused.status == 503)
            #expect(String(decoding: refused.body, as: UTF8.self).contains("too-many-connections"))
            #expect(refused.fields["retry-after"] != nil)
            withExtendedLifetime(holder) {}
        }
    }

    @Test func gracefulShutdownLetsADownloadOverTLSFinish() async throws {
        try await LiveServer.with(tls: try TestCertificates()) { server in
            guard let curl = CurlOverTLS(server) else { return }
            let digest = try server.version("com.example.level1").digest
            let url = "\(server.base)/v1/bundles/\(digest)?grant=\(server.grant(digest.hex))"
            let file = server.scratch.path + "/during-shutdown.zip"
            let download = Task {
                try await ExternalTool.run(curl.curl, curl.trust + ["-f", "--limit-rate", "4M", "-o", file, url])
            }
            // The answer has started before the server is asked to stop.
            try await Self.waitForBytes(in: file)
            await server.shutdown()
            let result = try await download.value
            #expect(result.status == 0, "\(result.error)")
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file))) == (try server.bundleBytes(digest.hex)))
        }
    }

    @Test func idleTimeoutOverTLSClosesIdleConnectionsButNotSlowDownloads() async throws {
        // Three seconds: curl's start and handshake count as idle time, and on a loaded machine they can take a second.
        try await LiveServer.with(idleTimeoutSeconds: 3, tls: try TestCertificates()) { server in
            guard let curl = CurlOverTLS(server) else { return }
            let digest = try server.version("com.example.level1").digest
            let url = "/v1/bundles/\(digest)?grant=\(server.grant(digest.hex))"
            // About six seconds of download, longer than the idle timeout.
            let slow = try await curl.fetch(url, ["--limit-rate", "1M"])
            #expect(slow.status == 200)
            #expect(slow.body == (try server.bundleBytes(digest.hex)))
            // A connection that never starts its handshake is closed once the timeout passes.
            let idle = try RawHTTPClient(port: server.port)
            #expect(await idle.isClosedByPeer())
        }
    }

    /// Waits (with a generous bound) until `file` holds some bytes.
    static func waitForBytes(in file: String) async throws {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(120) {
            if let size = try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int, size > 0 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no bytes arrived in \(file)")
    }

    /// `/metrics` over HTTPS, scraped until `condition` holds (the byte path counts an answer once its last byte
    /// was written, which may come just after the client read it); a generous bound, never a fixed wait.
    static func scrape(_ curl: CurlOverTLS, until condition: (PrometheusText) -> Bool) async throws -> PrometheusText {
        let start = ContinuousClock.now
        while true {
            let answer = try await curl.fetch("/metrics", ["-H", "Authorization: Bearer \(LiveServer.adminToken)"])
            let metrics = try PrometheusText(String(decoding: answer.body, as: UTF8.self))
            if condition(metrics) || ContinuousClock.now - start > .seconds(60) { return metrics }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
