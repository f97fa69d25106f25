@testable import DepotServerTestSupport
import DepotCore
import DepotLedger
import DepotServer
import DepotServices
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// Staged rollouts and the beta channel on two instances sharing one ledger: a version at 10% reaches about a tenth
/// of 1,000 buyers, exactly those the documented hash picks, the same on either instance and on every retry;
/// halting, raising and rolling back change what new redeems get at once; a beta version reaches test purchases
/// only until it is promoted.
@Suite("Rollouts and channels on two instances")
struct RolloutTests {
    static let level1 = "com.example.level1"

    /// A production purchase of the level, under a fresh app account token.
    struct Buyer {
        var jws: String
        var account: String
    }

    static func buyer(_ shared: SharedInstances, environment: String = "Production") throws -> Buyer {
        let account = UUID().uuidString.lowercased()
        let (jws, _) = try PurchaseRequests.sign(
            dataDirectory: shared.scratch.path + "/data", bundleId: "com.example.depot.test", product: level1,
            type: SharedLedgerInstanceTests.nonConsumable
        ) {
            $0.appAccountToken = account
            $0.environment = environment
        }
        return Buyer(jws: jws, account: account)
    }

    /// The version a redeem on `client` offers.
    static func offered(_ client: RawHTTPClient, _ buyer: Buyer) async throws -> String? {
        let answer = try await SharedLedgerInstanceTests.redeem(client, buyer.jws)
        return answer["downloads.0.version"]?.string
    }

    static func post(_ client: Endpoint, _ path: String, key: String, json: String? = nil) async throws -> RawHTTPClient.Response {
        try await client.request(
            PublisherRequests.request("POST", "/v1/publisher/products/\(level1)/versions/\(path)", key: key, json: json))
    }

    /// Whether the documented hash puts `buyer` within `percent` of version 2.0's rollout.
    static func within(_ percent: Int, _ buyer: Buyer) -> Bool {
        RolloutBucket.isWithin(percent: percent, contentId: level1, version: "2.0", buyer: "account:" + buyer.account)
    }

    @Test(arguments: LedgerEngine.tested)
    func aRolloutReachesItsShareOnEveryInstanceAndHaltsAndRollsBackAtOnce(engine: LedgerEngine) async throws {
        try await SharedInstances.with(engine: engine) { shared in
            let (a, b) = (shared.servers[0], shared.servers[1])
            let publisherA = Endpoint(port: a.port)
            let clients = [try RawHTTPClient(port: a.port), try RawHTTPClient(port: b.port)]
            let (key, _) = try await PublisherRequests.makeKey(a.application.ledger)
            let directory = try PublisherRequests.writePack(
                in: shared.scratch, at: "uploads/level1-2.0", productId: Self.level1, version: "2.0",
                publishedAt: "2026-06-01T09:00:00Z", files: ["notes.txt": Array("Second edition.".utf8)])
            _ = try await a.application.stager.stage(directory: directory, .init(productId: Self.level1, version: "2.0"))

            // Refused: a rollout percent out of range, a halt of what does not roll out.
            #expect(try await Self.post(publisherA, "2.0/publish", key: key, json: #"{"rollout": 0}"#).status == 400)
            #expect(try await Self.post(publisherA, "2.0/publish", key: key, json: #"{"rollout": 10, "channel": "beta"}"#).status == 400)
            let notRolling = try await Self.post(publisherA, "2.0/halt", key: key)
            #expect(notRolling.status == 409 && notRolling.text.contains("not-rolling-out"), "\(notRolling.text)")

            let published = try await Self.post(publisherA, "2.0/publish", key: key, json: #"{"rollout": 10}"#)
            #expect(published.status == 200, "\(published.text)")
            let release = try JSONAnswer(published)
            #expect(release["version.release.rollout"]?.int == 10 && release["version.release.channel"]?.string == "production")
            #expect(release["version.current"]?.bool == false)
            try await eventually("B holding the rollout") { b.application.catalog.hasLimitedRelease(productId: Self.level1) }
            // Lowering a rollout is refused.
            #expect(try await Self.post(publisherA, "2.0/rollout", key: key, json: #"{"percent": 5}"#).status == 409)

            // 1,000 buyers, each on either instance: about a tenth get 2.0, exactly those the hash picks.
            let buyers = try (0..<1_000).map { _ in try Self.buyer(shared) }
            var reached = 0
            for (index, buyer) in buyers.enumerated() {
                let version = try await Self.offered(clients[index % 2], buyer)
                #expect(version == (Self.within(10, buyer) ? "2.0" : "1.0"), "buyer \(index)")
                if version == "2.0" { reached += 1 }
            }
            #expect((60...140).contains(reached), "10% reached \(reached) of 1,000")
            // The publisher sees how far each version reached, from the delivery records.
            let listed = try JSONAnswer(
                try await publisherA.request(PublisherRequests.request("GET", "/v1/publisher/products/\(Self.level1)/versions", key: key)))
            let rows = listed["versions"]?.array ?? []
            let reach = Dictionary(rows.compactMap { row in row["version"]?.string.map { ($0, row["offered"]?.int ?? -1) } }) { first, _ in
                first
            }
            #expect(reach["2.0"] == reached && reach["1.0"] == 1_000 - reached, "\(reach)")
            // A restore offers each buyer the same version as a redeem: ten buyers within the rollout, ten outside.
            for buyer in buyers.filter({ Self.within(10, $0) }).prefix(10) + buyers.filter({ !Self.within(10, $0) }).prefix(10) {
                let body = #"{"signedTransactions": [""# + buyer.jws + #""]}"#
                let restored = try await clients[1].request(PurchaseRequests.post("/v1/restore", body))
                #expect(restored.status == 200, "\(restored.text)")
                #expect(try JSONAnswer(restored)["downloads.0.version"]?.string == (Self.within(10, buyer) ? "2.0" : "1.0"))
            }
            // The same answer on the other instance, on a retry.
            for (index, buyer) in buyers.prefix(200).enumerated() {
                #expect(try await Self.offered(clients[(index + 1) % 2], buyer) == (Self.within(10, buyer) ? "2.0" : "1.0"))
            }

            // Halted: who got 2.0 keeps it; a new buyer the hash picks gets 1.0, on either instance at once.
            let halt = try await Self.post(publisherA, "2.0/halt", key: key)
            #expect(halt.status == 200, "\(halt.text)")
            #expect(try JSONAnswer(halt)["version.release.halted"]?.bool == true)
            try await eventually("B holding the halt") { b.application.catalog.hasHaltedRollout(productId: Self.level1) }
            let kept = try #require(buyers.first { Self.within(10, $0) })
            #expect(try await Self.offered(clients[1], kept) == "2.0")
            var fresh = try Self.buyer(shared)
            while !Self.within(10, fresh) { fresh = try Self.buyer(shared) }
            #expect(try await Self.offered(clients[0], fresh) == "1.0")
            #expect(try await Self.offered(clients[1], fresh) == "1.0")

            // Raised to 25%: the rollout resumes, and everyone within 10% is still in.
            #expect(try await Self.post(publisherA, "2.0/rollout", key: key, json: #"{"percent": 25}"#).status == 200)
            try await eventually("B holding the raise") { !b.application.catalog.hasHaltedRollout(productId: Self.level1) }
            var between = try Self.buyer(shared)
            while Self.within(10, between) || !Self.within(25, between) { between = try Self.buyer(shared) }
            #expect(try await Self.offered(clients[1], between) == "2.0")
            #expect(try await Self.offered(clients[0], fresh) == "2.0")

            // Rolled back (the current version published again): 2.0 is offered to nobody, at once.
            let back = try await Self.post(publisherA, "1.0/publish", key: key)
            #expect(back.status == 200, "\(back.text)")
            #expect(try JSONAnswer(back)["rollback"]?.bool == true)
            try await eventually("B without the rollout") { !b.application.catalog.hasLimitedRelease(productId: Self.level1) }
            #expect(try await Self.offered(clients[1], kept) == "1.0")
            #expect(try await Self.offered(clients[0], between) == "1.0")
            // Its bundle is still served, so grants handed out for it keep working.
            let digest = try #require(a.application.catalog.superseded.first { $0.version == "2.0" }?.digest)
            #expect(try await clients[1].request(RawHTTPClient.get("/v1/bundles/\(digest)?grant=\(b.grant(digest))")).status == 200)
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aBetaVersionReachesTestPurchasesOnlyUntilPromoted(engine: LedgerEngine) async throws {
        try await SharedInstances.with(engine: engine) { shared in
            let (a, b) = (shared.servers[0], shared.servers[1])
            let publisherA = Endpoint(port: a.port)
            let client = try RawHTTPClient(port: b.port)
            let (key, _) = try await PublisherRequests.makeKey(a.application.ledger)
            let directory = try PublisherRequests.writePack(
                in: shared.scratch, at: "uploads/level1-3.0", productId: Self.level1, version: "3.0",
                publishedAt: "2026-06-01T09:00:00Z", files: ["notes.txt": Array("Beta edition.".utf8)])
            _ = try await a.application.stager.stage(directory: directory, .init(productId: Self.level1, version: "3.0"))
            // Only a beta version is promoted.
            #expect(try await Self.post(publisherA, "3.0/promote", key: key).status == 409)

            let beta = try await Self.post(publisherA, "3.0/publish", key: key, json: #"{"channel": "beta"}"#)
            #expect(beta.status == 200, "\(beta.text)")
            #expect(try JSONAnswer(beta)["version.release.channel"]?.string == "beta")
            try await eventually("B holding the beta version") { b.application.catalog.hasLimitedRelease(productId: Self.level1) }
            for environment in ["Sandbox", "Xcode"] {
                #expect(try await Self.offered(client, try Self.buyer(shared, environment: environment)) == "3.0", "\(environment)")
            }
            let production = try Self.buyer(shared)
            #expect(try await Self.offered(client, production) == "1.0")
            // The public list still shows production's version.
            let list = try await client.request(RawHTTPClient.get("/v1/products"))
            #expect(!list.text.contains("\"3.0\""), "\(list.text)")

            let promoted = try await Self.post(publisherA, "3.0/promote", key: key)
            #expect(promoted.status == 200, "\(promoted.text)")
            #expect(try JSONAnswer(promoted)["version.current"]?.bool == true)
            try await eventually("B offering the promoted version") { try b.version(Self.level1).version == "3.0" }
            #expect(try await Self.offered(client, production) == "3.0")
        }
    }
}
