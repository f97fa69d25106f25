@testable import DepotServerTestSupport
import DepotLedger
import DepotServer
import DepotServices
import DepotTestSupport
import Foundation
import Testing

/// `depot keys create|list|revoke` on the real binary, against the ledger the configuration names; the key it
/// prints opens the publisher routes of a server on that ledger until it is revoked.
@Suite("depot keys")
struct KeysCommandTests {
    @Test func createListRevokeAndUseAKey() async throws {
        try await LiveServer.with(packs: []) { server in
            let binary = DepotProcess.debugBinary()
            let place = ["--config", server.scratch.path + "/Config", "--data-dir", server.scratch.path + "/data"]
            let created = try await ExternalTool.run(
                binary, ["keys", "create", "--publisher", "magazine", "--products", "com.example.month", "com.example.news"] + place)
            #expect(created.status == 0, "\(created.error)")
            let key = try #require(created.output.split(separator: "\n").last.map(String.init))
            #expect(PublisherKey.isWellFormed(key), "\(created.output)")

            // Stored as its digest only, with its scopes.
            let record = try #require(try await server.application.ledger.publisherKey(digest: PublisherKey.digest(of: key)))
            #expect(record.publisher == "magazine")
            #expect(record.productPrefixes == ["com.example.month", "com.example.news"])
            let ledgerBytes = try Data(contentsOf: URL(fileURLWithPath: server.scratch.path + "/data/ledger.sqlite"))
            #expect(ledgerBytes.range(of: Data(key.utf8)) == nil)

            let listed = try await ExternalTool.run(binary, ["keys", "list"] + place)
            #expect(listed.status == 0, "\(listed.error)")
            let row = try #require(listed.output.split(separator: "\n").first { $0.hasPrefix(record.id) })
            #expect(row.contains("magazine") && row.contains("com.example.month,com.example.news"))
            #expect(row.hasSuffix("\t-"))
            #expect(!listed.output.contains(key))

            let client = Endpoint(port: server.port)
            let path = "/v1/publisher/products/com.example.monthly"
            #expect(try await client.request(PublisherRequests.request("GET", path, key: key)).status == 200)

            let revoked = try await ExternalTool.run(binary, ["keys", "revoke", record.id] + place)
            #expect(revoked.status == 0, "\(revoked.error)")
            let refused = try await client.request(PublisherRequests.request("GET", path, key: key))
            #expect(refused.status == 403)
            #expect(PublisherRequests.errorCode(refused) == "publisher-key-revoked")
            let relisted = try await ExternalTool.run(binary, ["keys", "list"] + place)
            #expect(relisted.output.split(separator: "\n").first { $0.hasPrefix(record.id) }?.hasSuffix("\t-") == false)

            let unknown = try await ExternalTool.run(binary, ["keys", "revoke", "nosuchkey"] + place)
            #expect(unknown.status != 0)
            #expect(unknown.error.contains("no publisher key has the id nosuchkey"))
            let badName = try await ExternalTool.run(binary, ["keys", "create", "--publisher", "two words"] + place)
            #expect(badName.status != 0)
        }
    }
}
