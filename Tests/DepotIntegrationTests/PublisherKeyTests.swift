@testable import DepotServerTestSupport
import DepotLedger
import DepotServer
import DepotServices
import Foundation
import Testing

/// Publisher keys at the door of `/v1/publisher/...`: missing, malformed, unknown, revoked and
/// out-of-scope keys, against a live server and its SQLite ledger.
@Suite("Publisher keys")
struct PublisherKeyTests {
    @Test func wrongMissingRevokedAndOutOfScopeKeysAreRefused() async throws {
        try await LiveServer.with { server in
            let ledger = server.application.ledger
            let client = Endpoint(port: server.port)
            let path = "/v1/publisher/products/com.example.level1"
            let (all, _) = try await PublisherRequests.makeKey(ledger)
            let (scoped, _) = try await PublisherRequests.makeKey(ledger, publisher: "magazine", prefixes: ["com.example.month"])
            let (revoked, revokedId) = try await PublisherRequests.makeKey(ledger, publisher: "former")
            #expect(try await ledger.revokePublisherKey(id: revokedId, now: DepotApplication.systemClock()) == .revoked)

            let unknownKey = "dpk_" + String(repeating: "A", count: 43)
            let cases: [(key: String?, headers: [String], status: Int, code: String)] = [
                (nil, [], 401, "publisher-key-required"),
                (nil, ["Authorization: Basic dXNlcjpwYXNz"], 401, "publisher-key-required"),
                ("not-a-key", [], 401, "publisher-key-required"),
                ("dpk_short", [], 401, "publisher-key-required"),
                (all + "x", [], 401, "publisher-key-required"),
                (unknownKey, [], 401, "publisher-key-unknown"),
                (revoked, [], 403, "publisher-key-revoked"),
                (scoped, [], 403, "product-out-of-scope"),
            ]
            for entry in cases {
                let response = try await client.request(PublisherRequests.request("GET", path, key: entry.key, headers: entry.headers))
                #expect(response.status == entry.status, "\(entry.code): \(response.text)")
                #expect(PublisherRequests.errorCode(response) == entry.code, "\(response.text)")
                #expect(!response.text.contains(all) && !response.text.contains(revoked))
            }
            // The scoped key acts on its products only; the unscoped one on every product.
            let monthly = try await client.request(
                PublisherRequests.request("GET", "/v1/publisher/products/com.example.monthly", key: scoped))
            #expect(monthly.status == 200, "\(monthly.text)")
            let level = try await client.request(PublisherRequests.request("GET", path, key: all))
            #expect(level.status == 200, "\(level.text)")
            #expect(try JSONAnswer(level)["product.type"]?.string == "nonConsumable")
            // A scoped key cannot create a product outside its scope either.
            let outside = try await client.request(
                PublisherRequests.request(
                    "PUT", "/v1/publisher/products/com.example.other", key: scoped, json: "{\"type\": \"consumable\", \"title\": \"X\"}"))
            #expect(outside.status == 403)
            #expect(try await ledger.catalogProduct(id: "com.example.other") == nil)
        }
    }

    @Test func keysAreRandomAndStoredAsDigestsOnly() async throws {
        let first = PublisherKey.make(publisher: "a", productPrefixes: [], now: 1)
        let second = PublisherKey.make(publisher: "a", productPrefixes: [], now: 1)
        #expect(first.key != second.key && first.record.id != second.record.id)
        #expect(PublisherKey.isWellFormed(first.key) && first.key.count == 4 + 43)
        #expect(first.record.keyDigest == PublisherKey.digest(of: first.key))
        #expect(!first.record.keyDigest.isEmpty && first.record.keyDigest != Array(first.key.utf8))
        #expect(PublisherKey.constantTimeEqual(first.record.keyDigest, PublisherKey.digest(of: first.key)))
        #expect(!PublisherKey.constantTimeEqual(first.record.keyDigest, second.record.keyDigest))
    }
}
