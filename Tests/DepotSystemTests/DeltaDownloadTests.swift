@testable import DepotServerTestSupport
import DepotCore
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// An app that has an older version of a content downloads only what changed.
@Suite("Delta downloads on a live server")
struct DeltaDownloadTests {
    @Test func redeemingWithAnInstalledVersionOffersADelta() async throws {
        guard let python = ExternalTool.require("python3") else { return }
        try await LiveServer.with(packs: LiveServer.PackSpec.levelOneDeltaPair) { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable")
            let full = try PurchaseSteps.object(
                try await PurchaseSteps.post(client, "/v1/transactions", "{\"signedTransaction\": \"\(jws)\"}"))
            let fullDownload = try #require((full["downloads"] as? [[String: Any]])?.first)
            #expect(fullDownload["version"] as? String == "1.1")
            #expect(fullDownload["baseVersion"] == nil)

            let answer = try PurchaseSteps.object(
                try await PurchaseSteps.post(
                    client, "/v1/transactions",
                    "{\"signedTransaction\": \"\(jws)\", \"installed\": [{\"contentId\": \"com.example.level1\", \"version\": \"1.0\"}]}"))
            let delta = try #require((answer["downloads"] as? [[String: Any]])?.first)
            #expect(delta["baseVersion"] as? String == "1.0")
            #expect(delta["version"] as? String == "1.1")
            let deltaDigest = try #require(delta["digest"] as? String)
            #expect(deltaDigest != fullDownload["digest"] as? String)
            #expect((delta["size"] as? Int ?? .max) < (fullDownload["size"] as? Int ?? 0))

            let bytes = try await client.request(RawHTTPClient.get(try #require(delta["url"] as? String)))
            #expect(bytes.status == 200)
            let file = server.scratch.path + "/delta.zip"
            try Data(bytes.body).write(to: URL(fileURLWithPath: file))
            let listing = try await ExternalTool.run(
                python, ["-c", "import sys,zipfile; print('\\n'.join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))", file])
            #expect(
                listing.output.split(separator: "\n").map(String.init) == [
                    "ContentInfo.plist", "Contents/maps/cave.json", "Contents/new.txt",
                ])

            let finished = try await PurchaseSteps.post(
                client, "/v1/transactions/\(id)/finish",
                "{\"finishToken\": \"\(try #require((answer["transaction"] as? [String: Any])?["finishToken"] as? String))\", "
                    + "\"delivered\": [{\"contentId\": \"com.example.level1\", \"digest\": \"\(deltaDigest)\"}]}")
            #expect(finished.status == 200, "\(finished.text)")
        }
    }
}
