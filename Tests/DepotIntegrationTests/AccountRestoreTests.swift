@testable import DepotServerTestSupport
import Crypto
import DepotGooglePlayDouble
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// A restore by account through a live server, on both ledger engines: what Play Billing Library 8 no longer shows
/// the device (consumed one-time products, expired subscriptions) comes from the ledger, for the account the
/// studio's backend proves with an ES256 assertion, and for no other.
@Suite("Restore by account on live servers")
struct AccountRestoreTests {
    static let alice = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    static let bob = "0f1e2d3c-4b5a-4978-8685-746352413021"
    /// The live server's `app.bundleId`: the assertions' audience by default.
    static let audience = "com.example.depot.test"

    /// The studio backend's signing key, its public key in a PEM file, and the `restore` member naming it.
    struct Studio {
        let issuer: DevelopmentAccountAssertionIssuer
        let settings: String

        init(_ scratch: ScratchDirectory, maxLifetimeSeconds: Int = 600) throws {
            issuer = DevelopmentAccountAssertionIssuer(
                key: P256.Signing.PrivateKey(), keyId: "studio-1", audience: AccountRestoreTests.audience)
            try scratch.write("restore-es256.pem", issuer.publicKeyPEM)
            settings = """
                "restore": {"accountAssertion": {"keys": [{"id": "studio-1", "publicKeyFile": "\(scratch.path)/restore-es256.pem"}],
                  "maxLifetimeSeconds": \(maxLifetimeSeconds)}}
                """
        }

        /// An assertion for `account`, issued now.
        func assertion(_ account: String, lifetime: Int64 = 300) throws -> String {
            try issuer.sign(account: account, issuedAt: Int64(Date().timeIntervalSince1970), lifetime: lifetime)
        }
    }

    /// Runs `body` on a server selling through the Google Play double and restoring by account.
    static func with(
        _ engine: LedgerEngine, name: String = #function,
        _ body: (LiveServer, GooglePlayDoubleFixture, GooglePlayTestSigner, Studio) async throws -> Void
    ) async throws {
        let signer = try GooglePlayTestSigner()
        let scratch = try ScratchDirectory(name + "-studio")
        defer { scratch.remove() }
        let studio = try Studio(scratch)
        try await GooglePlayDoubleFixture.with(name) { play in
            try await GooglePlayFlowTests.withServer(engine, settings: play.settings(signer) + ", " + studio.settings, name: name) {
                server in try await body(server, play, signer, studio)
            }
        }
    }

    static func restore(
        _ client: RawHTTPClient, _ body: [String: Any], from address: String = "198.51.100.7"
    ) async throws
        -> RawHTTPClient.Response
    {
        try await PurchaseSteps.post(client, "/v1/restore", try GooglePlaySteps.json(body), ["X-Forwarded-For: \(address)"])
    }

    static func redeem(
        _ client: RawHTTPClient, _ purchase: (data: String, signature: String, token: String, orderId: String)
    )
        async throws -> [String: Any]
    {
        let answer = try await PurchaseSteps.post(
            client, "/v1/transactions", try GooglePlayFlowTests.redeemBody(purchase.data, purchase.signature))
        #expect(answer.status == 200, "\(answer.text)")
        return try PurchaseSteps.object(answer)
    }

    @Test(arguments: LedgerEngine.tested)
    func anAccountsHistoryComesFromTheLedgerMarkedAndNoOneElses(engine: LedgerEngine) async throws {
        try await Self.with(engine) { server, play, signer, studio in
            let client = try RawHTTPClient(port: server.port)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let day: Int64 = 86_400_000
            // Alice's Play purchases: coins bought, delivered and consumed; coins bought and not delivered yet; a
            // subscription that ended in September 2026; the level, delivered.
            let consumed = try play.purchase(signer, productId: "coins", purchaseTime: now - 4 * day, obfuscatedAccountId: Self.alice)
            let (consumedId, _, _) = try await GooglePlaySteps.buy(client, consumed, contentId: "com.example.coins")
            let owed = try play.purchase(signer, productId: "coins", purchaseTime: now - 3 * day, obfuscatedAccountId: Self.alice)
            _ = try await Self.redeem(client, owed)
            let bought: Int64 = 1_787_616_000_000
            let ended = try play.purchase(
                signer, productId: "monthly_sub", purchaseTime: bought, expiry: bought + 31 * day, obfuscatedAccountId: Self.alice)
            _ = try await Self.redeem(client, ended)
            let level = try play.purchase(signer, productId: "level1", purchaseTime: now - 2 * day, obfuscatedAccountId: Self.alice)
            let (levelId, _, _) = try await GooglePlaySteps.buy(client, level, contentId: "com.example.level1")
            // And her App Store purchase of the level too, the same account as its appAccountToken.
            let (premium, premiumId) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
                $0.appAccountToken = Self.alice
            }
            let redeemedPremium = try await PurchaseSteps.post(
                client, "/v1/transactions", try GooglePlaySteps.json(["signedTransaction": premium]))
            #expect(redeemedPremium.status == 200, "\(redeemedPremium.text)")
            // Bob's level; and Bob's coins redeemed by someone claiming to be Alice.
            let bobs = try play.purchase(signer, productId: "level1", purchaseTime: now - day, obfuscatedAccountId: Self.bob)
            _ = try await Self.redeem(client, bobs)
            let claimed = try play.purchase(signer, productId: "coins", purchaseTime: now - day, obfuscatedAccountId: Self.bob)
            let claimedAnswer = try await PurchaseSteps.post(
                client, "/v1/transactions",
                try GooglePlaySteps.json([
                    "googlePlay": ["purchaseData": claimed.data, "signature": claimed.signature], "appAccountToken": Self.alice,
                ]))
            #expect(claimedAnswer.status == 200, "\(claimedAnswer.text)")

            // Alice's assertion alone restores her history, newest purchase first.
            let answer = try await Self.restore(client, ["accountAssertion": try studio.assertion(Self.alice)])
            #expect(answer.status == 200, "\(answer.text)")
            let body = try PurchaseSteps.object(answer)
            let transactions = try #require(body["transactions"] as? [[String: Any]])
            let byId = Dictionary(uniqueKeysWithValues: transactions.map { ($0["id"] as? String ?? "", $0) })
            #expect(transactions.compactMap { $0["id"] as? String } == [premiumId, levelId, owed.orderId, consumedId, ended.orderId])
            #expect(Set(byId.keys) == [premiumId, levelId, owed.orderId, consumedId, ended.orderId], "\(answer.text)")
            #expect(byId[consumedId]?["history"] as? String == "consumed")
            #expect(byId[consumedId]?["finishToken"] == nil, "history has nothing to finish")
            #expect(byId[ended.orderId]?["history"] as? String == "expired")
            #expect(byId[levelId]?["history"] == nil)
            #expect(byId[levelId]?["finishToken"] is String)
            #expect(byId[owed.orderId]?["history"] == nil, "an unfinished consumable is still owed")
            #expect(byId[owed.orderId]?["finishToken"] is String)
            #expect(byId[premiumId]?["store"] as? String == "app-store")
            #expect(byId[levelId]?["store"] as? String == "google-play")
            let downloads = try #require(body["downloads"] as? [[String: Any]])
            let contents = Set(downloads.compactMap { $0["contentId"] as? String })
            // The level (once), the owed coins, and the issue the ended subscription covered.
            #expect(
                contents == ["com.example.level1", "com.example.coins", "com.example.monthly.2026-09"],
                "\(answer.text)")
            #expect(body["accountTruncated"] == nil)
            // A download answered works.
            let url = try #require(downloads.first { $0["contentId"] as? String == "com.example.level1" }?["url"] as? String)
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)

            // Bob's assertion lists Bob's own purchases only.
            let bobsAnswer = try PurchaseSteps.object(try await Self.restore(client, ["accountAssertion": try studio.assertion(Self.bob)]))
            let bobsIds = Set((bobsAnswer["transactions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
            #expect(bobsIds == [bobs.orderId, claimed.orderId])
            // An account with nothing lists nothing.
            let nobody = try PurchaseSteps.object(
                try await Self.restore(client, ["accountAssertion": try studio.assertion("5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d")]))
            #expect((nobody["transactions"] as? [Any])?.isEmpty == true)

            // With the device's own purchases, each transaction is answered once, the signed one as restored.
            let both = try PurchaseSteps.object(
                try await Self.restore(
                    client,
                    [
                        "accountAssertion": try studio.assertion(Self.alice),
                        "googlePlayPurchases": [["purchaseData": level.data, "signature": level.signature]],
                    ]))
            let bothIds = (both["transactions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(bothIds.count == Set(bothIds).count)
            #expect(bothIds.first == levelId)
            #expect(Set(bothIds) == Set(byId.keys))
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func everyForgedOrStretchedAssertionIsRefusedAndListsNothing(engine: LedgerEngine) async throws {
        try await Self.with(engine) { server, play, signer, studio in
            let client = try RawHTTPClient(port: server.port)
            let level = try play.purchase(signer, productId: "level1", obfuscatedAccountId: Self.alice)
            _ = try await Self.redeem(client, level)
            let now = Int64(Date().timeIntervalSince1970)
            let issuer = studio.issuer
            let good = issuer.claims(account: Self.alice, issuedAt: now, lifetime: 300)
            func changed(_ change: (inout [String: JSONValue]) -> Void) -> [String: JSONValue] {
                var claims = good
                change(&claims)
                return claims
            }
            let forger = DevelopmentAccountAssertionIssuer(key: P256.Signing.PrivateKey(), keyId: "studio-1", audience: Self.audience)
            let genuine = try issuer.sign(claims: good)
            let parts = genuine.split(separator: ".").map(String.init)
            let bobsPayload = Base64URL.encode(try JSONValue.encodeObject(changed { $0["sub"] = .string(Self.bob) }))
            let header = { (alg: String) in Base64URL.encode(try JSONValue.encodeObject(["alg": .string(alg), "kid": "studio-1"])) }
            let cases: [(name: String, token: String, check: String)] = [
                ("forged with another key", try forger.sign(claims: good), "signature"),
                (
                    "expired",
                    try issuer.sign(
                        claims: changed {
                            $0["exp"] = .integer(now - 1)
                            $0["iat"] = .integer(now - 100)
                        }), "expired"
                ),
                ("wrong audience", try issuer.sign(claims: changed { $0["aud"] = "com.example.other" }), "audience"),
                ("alg none", try header("none") + "." + parts[1] + ".", "algorithm"),
                ("alg HS256", try header("HS256") + "." + parts[1] + "." + parts[2], "algorithm"),
                ("unknown kid", try issuer.sign(claims: good, header: ["alg": "ES256", "kid": "studio-2"]), "key"),
                ("sub not a UUID", try issuer.sign(claims: changed { $0["sub"] = "player-42" }), "subject"),
                ("lifetime too long", try issuer.sign(claims: changed { $0["exp"] = .integer(now + 601) }), "lifetime"),
                ("huge exp", try issuer.sign(claims: changed { $0["exp"] = .integer(.max) }), "lifetime"),
                ("tampered payload: Bob's account", parts[0] + "." + bobsPayload + "." + parts[2], "signature"),
                ("oversized", genuine + String(repeating: "A", count: 5_000), "malformed"),
            ]
            for (index, item) in cases.enumerated() {
                let answer = try await Self.restore(client, ["accountAssertion": item.token], from: "198.51.100.\(index + 10)")
                #expect(answer.status == 401, "\(item.name): \(answer.text)")
                #expect(PublisherRequests.errorCode(answer) == "account-assertion-invalid", "\(item.name)")
                #expect(
                    answer.text.contains("\"\(item.check): ") || answer.text.contains("\(item.check): "), "\(item.name): \(answer.text)")
                #expect(!answer.text.contains(Self.alice), "\(item.name): nothing listed")
            }
            // Refused even beside purchases the device presents: nothing of the restore is answered.
            let mixed = try await Self.restore(
                client,
                [
                    "accountAssertion": try forger.sign(claims: good),
                    "googlePlayPurchases": [["purchaseData": level.data, "signature": level.signature]],
                ])
            #expect(mixed.status == 401, "\(mixed.text)")
            // Not a string: a bad request.
            let number = try await Self.restore(client, ["accountAssertion": 42])
            #expect(number.status == 400, "\(number.text)")
            // The genuine one, replayed, still lists Alice's purchases only (its sub is signed).
            let replayed = try await Self.restore(client, ["accountAssertion": genuine])
            #expect(replayed.status == 200, "\(replayed.text)")
            #expect(try await Self.restore(client, ["accountAssertion": genuine]).text.contains(level.orderId))
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func forgedAssertionsSpendTheClientsRestoreBudget(engine: LedgerEngine) async throws {
        try await Self.with(engine) { server, _, _, studio in
            let client = try RawHTTPClient(port: server.port)
            let forger = DevelopmentAccountAssertionIssuer(key: P256.Signing.PrivateKey(), keyId: "studio-1", audience: Self.audience)
            let forged = try forger.sign(account: Self.alice, issuedAt: Int64(Date().timeIntervalSince1970))
            // The live server allows 20 restores per address a day.
            for _ in 0..<20 {
                let answer = try await Self.restore(client, ["accountAssertion": forged], from: "203.0.113.9")
                #expect(answer.status == 401, "\(answer.text)")
            }
            let limited = try await Self.restore(client, ["accountAssertion": try studio.assertion(Self.alice)], from: "203.0.113.9")
            #expect(limited.status == 429, "\(limited.text)")
            #expect(PublisherRequests.errorCode(limited) == "restore-rate-limited")
            let elsewhere = try await Self.restore(client, ["accountAssertion": try studio.assertion(Self.alice)], from: "203.0.113.10")
            #expect(elsewhere.status == 200, "\(elsewhere.text)")
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func oneAccountRestoredFromManyPlacesIsSlowedDownLikeASharedPurchase(engine: LedgerEngine) async throws {
        try await Self.with(engine) { server, play, signer, studio in
            let client = try RawHTTPClient(port: server.port)
            let level = try play.purchase(signer, productId: "level1", obfuscatedAccountId: Self.alice)
            _ = try await Self.redeem(client, level)
            // The live server flags a purchase redeemed from more than 10 addresses and slows it down: the redeem
            // was one, so at the tenth restore by account, from an eleventh address, the level is left out.
            for index in 0..<9 {
                let answer = try await Self.restore(
                    client, ["accountAssertion": try studio.assertion(Self.alice)], from: "198.51.100.\(100 + index)")
                #expect(answer.status == 200, "restore \(index): \(answer.text)")
                #expect(answer.text.contains(level.orderId), "restore \(index)")
            }
            let slowed = try await Self.restore(client, ["accountAssertion": try studio.assertion(Self.alice)], from: "198.51.100.200")
            #expect(slowed.status == 200, "\(slowed.text)")
            #expect(!slowed.text.contains(level.orderId), "\(slowed.text)")
            #expect((try PurchaseSteps.object(slowed)["downloads"] as? [Any])?.isEmpty == true, "\(slowed.text)")
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aPurchasePlantedUnderAnAccountAndSharedDoesNotStopItsRestores(engine: LedgerEngine) async throws {
        try await Self.with(engine) { server, play, signer, studio in
            let client = try RawHTTPClient(port: server.port)
            let level = try play.purchase(signer, productId: "level1", obfuscatedAccountId: Self.alice)
            _ = try await Self.redeem(client, level)
            // Someone who knows Alice's account id buys coins under it and redeems them from many places until
            // the purchase is flagged and slowed down.
            let planted = try play.purchase(signer, productId: "coins", obfuscatedAccountId: Self.alice)
            let body = try GooglePlayFlowTests.redeemBody(planted.data, planted.signature)
            var statuses: [Int] = []
            for index in 0..<12 {
                statuses.append(
                    try await PurchaseSteps.post(client, "/v1/transactions", body, ["X-Forwarded-For: 203.0.113.\(50 + index)"]).status)
            }
            #expect(statuses.contains(429), "\(statuses)")
            // Alice's restore still answers her level; the planted purchase is left out.
            let answer = try await Self.restore(client, ["accountAssertion": try studio.assertion(Self.alice)], from: "192.0.2.77")
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.text.contains(level.orderId))
            #expect(!answer.text.contains(planted.orderId), "\(answer.text)")
            let downloads = try #require(try PurchaseSteps.object(answer)["downloads"] as? [[String: Any]])
            #expect(downloads.compactMap { $0["contentId"] as? String } == ["com.example.level1"])
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func withoutTheSectionARestoreByAccountIsRefused(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayFlowTests.withServer(engine, settings: try GooglePlayFixture.settings(signer)) { server in
            let client = try RawHTTPClient(port: server.port)
            let issuer = DevelopmentAccountAssertionIssuer(key: P256.Signing.PrivateKey(), keyId: "studio-1", audience: Self.audience)
            let answer = try await Self.restore(
                client, ["accountAssertion": try issuer.sign(account: Self.alice, issuedAt: Int64(Date().timeIntervalSince1970))])
            #expect(answer.status == 404, "\(answer.text)")
            #expect(PublisherRequests.errorCode(answer) == "account-restore-not-configured")
        }
    }
}
