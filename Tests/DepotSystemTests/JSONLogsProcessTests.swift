@testable import DepotServerTestSupport
import DepotTrust
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `depot serve` with `log.format: json` at trace level, through a purchase and requests that put secrets where
/// a log line would show them (paths, request ids, bearer keys): every line it writes is one JSON object, the
/// request ids are in the lines, and no grant, publisher key, finish token or JWS is anywhere in the log.
@Suite("JSON logs of depot serve, secrets redacted")
struct JSONLogsProcessTests {
    static let packs: [LiveServer.PackSpec] = [
        LiveServer.PackSpec(
            directory: "game/level1", productId: "com.example.level1",
            files: ["notes.txt": Array(String(repeating: "Depot writes JSON logs. ", count: 500).utf8)])
    ]

    @Test func everyLineIsJSONAndNoSecretIsWritten() async throws {
        try await ServePlace.onEngine(.sqlite) { binary, _ in
            let scratch = try ScratchDirectory("jsonLogs")
            defer { scratch.remove() }
            try SharedInstances.writeConfiguration(in: scratch, settings: "\"log\": {\"format\": \"json\"}")
            try SharedInstances.write(Self.packs, in: scratch)
            let place = ServePlace(scratch: scratch, databaseURL: nil)
            let publisherKey = try await DepotCommand(scratch: scratch, databaseURL: nil).makeKey()
            let server = try await DepotProcess.start(
                binary: binary, arguments: place.arguments, environment: ["DEPOT_LOG_LEVEL": "trace"])
            defer { server.killIfRunning() }
            let client = try RawHTTPClient(port: try #require(server.port))

            let authority = try DevelopmentCertificateAuthority.loadOrCreate(directory: place.data + "/dev-ca")
            let builder = DevelopmentTransactionBuilder(
                bundleId: "com.example.depot.test", productId: "com.example.level1",
                type: DevelopmentTransactionBuilder.ProductType.nonConsumable)
            let jws = try authority.sign(payload: builder.payload())
            let redeemAnswer = try await PurchaseSteps.post(
                client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}", ["X-Request-Id: redeem-1"])
            let redeemed = try PurchaseSteps.object(redeemAnswer)
            let finishToken = try #require((redeemed["transaction"] as? [String: Any])?["finishToken"] as? String)
            let download = try #require((redeemed["downloads"] as? [[String: Any]])?.first)
            let url = try #require(download["url"] as? String)
            let digest = try #require(download["digest"] as? String)
            let grant = String(try #require(url.split(separator: "=").last))
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            let finished = try await PurchaseSteps.post(
                client, "/v1/transactions/\(builder.transactionId)/finish",
                "{\"finishToken\": \"\(finishToken)\", \"delivered\": [{\"contentId\": \"com.example.level1\", \"digest\": \"\(digest)\"}]}"
            )
            #expect(finished.status == 200, "\(finished.text)")

            // Secrets where a log line would show them.
            let listed = try await client.request(
                RawHTTPClient.get("/v1/publisher/products/com.example.level1", ["Authorization: Bearer \(publisherKey)"]))
            #expect(listed.status == 200, "\(listed.text)")
            let probes: [(path: String, headers: [String])] = [
                ("/v1/admin/transactions/\(jws)", ["Authorization: Bearer \(publisherKey)"]),
                ("/no/such/\(grant)", ["X-Request-Id: \(finishToken)"]),
                ("/no/such/\(publisherKey)", ["X-Request-Id: \(grant)"]),
                ("/no/such/\(finishToken)", []),
            ]
            var ids: [String] = []
            for probe in probes {
                let answer = try await client.request(RawHTTPClient.get(probe.path, probe.headers))
                #expect((400..<500).contains(answer.status))
                ids.append(try #require(answer.value("X-Request-Id")))
            }
            #expect(ids[1] == finishToken && ids[2] == grant)

            server.kill(SIGTERM)
            let exit = await server.waitForExit(timeout: .seconds(60))
            #expect(exit?.status == 0, "\(server.logText)")
            let log = server.logText

            let lines = log.split(separator: "\n")
            #expect(lines.count > 5)
            var loggedIds: Set<String> = []
            var serviceLineIds: [String: String] = [:]
            for line in lines {
                let object = try #require(
                    try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
                #expect(Set(object.keys) == ["time", "level", "label", "message", "metadata"], "\(line)")
                let id = (object["metadata"] as? [String: Any])?["hb.request.id"] as? String
                if let id { loggedIds.insert(id) }
                if let message = object["message"] as? String, message.hasPrefix("transaction ") { serviceLineIds[message] = id ?? "none" }
            }
            // The delivery service's own lines are logged under the id of the request they serve.
            #expect(serviceLineIds["transaction redeemed"] == "redeem-1", "\(serviceLineIds)")
            #expect(serviceLineIds["transaction finished"] == finished.value("X-Request-Id"), "\(serviceLineIds)")
            // Request ids are carried in the lines of the requests they name (a secret-shaped one redacted).
            #expect(loggedIds.contains(ids[0]) && loggedIds.contains(ids[3]), "\(loggedIds)")
            for (kind, secret) in [("JWS", jws), ("grant", grant), ("publisher key", publisherKey), ("finish token", finishToken)] {
                #expect(!log.contains(secret), "the \(kind) is in the log")
            }
            // They reached the logger, and were redacted there.
            for marker in ["[redacted jws]", "[redacted grant]", "[redacted publisher key]", "[redacted finish token]"] {
                #expect(log.contains(marker), "no \(marker) in the log")
            }
        }
    }
}
