@testable import DepotServerTestSupport
import DepotServer
import DepotSettings
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// Refunds as the App Store makes them in 2026, through a live server on both ledger engines: a prorated refund of
/// some of a consumable's units revokes those units only and its reversal restores them, a prorated refund of a
/// non-consumable follows the product's `refunds.prorated` policy, a family-shared purchase entitles until the
/// family sharing is revoked, and numbers out of bounds are refused with a 4xx.
@Suite("App Store partial refunds and family sharing")
struct AppStorePartialRefundTests {
    /// The standard packs and the consumable `com.example.coins`.
    static let packs =
        LiveServer.standardPacks + [
            LiveServer.PackSpec(
                directory: "shop/coins", productId: "com.example.coins", files: ["coins.json": Array("{\"coins\": 500}".utf8)])
        ]

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Posts a notification of `type` carrying `transaction` (a JWS), signed at `signedDate`.
    static func notify(
        _ client: RawHTTPClient, _ server: LiveServer, type: String, subtype: String? = nil, transaction: String,
        signedDate: Int64
    ) async throws -> RawHTTPClient.Response {
        let authority = try DevelopmentCertificateAuthority.loadOrCreate(
            directory: TrustSetup.developmentDirectory(server.application.configuration))
        var notification = DevelopmentNotificationBuilder(
            notificationType: type, subtype: subtype, bundleId: server.application.configuration.appBundleId)
        notification.notificationUUID = UUID().uuidString
        notification.signedDate = signedDate
        notification.signedTransactionInfo = transaction
        return try await PurchaseSteps.post(
            client, "/v1/notifications/appstore", "{\"signedPayload\": \"\(try authority.sign(payload: notification.payload()))\"}")
    }

    /// The effect of a notification the server took.
    static func effect(_ response: RawHTTPClient.Response) throws -> String {
        #expect(response.status == 200, "\(response.text)")
        return try JSONAnswer(response)["effect"]?.string ?? ""
    }

    /// The transaction a redeem answers with, expecting `status`.
    static func redeemed(_ client: RawHTTPClient, _ jws: String, status: Int = 200) async throws -> JSONAnswer {
        let response = try await client.request(PurchaseRequests.redeem(jws))
        #expect(response.status == status, "\(response.text)")
        return try JSONAnswer(response)
    }

    static func report(_ client: RawHTTPClient, _ id: String) async throws -> JSONAnswer {
        try JSONAnswer(try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)", [AdminTests.admin])))
    }

    @Test(arguments: LedgerEngine.allCases)
    func oneOfThreeConsumableUnitsRefundedRevokesOneAndItsReversalRestoresIt(engine: LedgerEngine) async throws {
        try await LiveServer.with(engine: engine, packs: Self.packs) { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") { $0.quantity = 3 }
            let first = try await Self.redeemed(client, jws)
            #expect(first["transaction.quantity"]?.int == 3)
            #expect(first["transaction.revokedQuantity"]?.int == 0)
            #expect(first["transaction.ownership"]?.string == "purchased")
            #expect(first["transaction.revocation"] == nil)
            let url = try #require(first["downloads.0.url"]?.string)

            let now = Self.now()
            let (refunded, _) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") {
                $0.transactionId = id
                $0.quantity = 3
                $0.signedDate = now - 5000
                $0.revocationDate = now - 5000
                $0.revocationType = "REFUND_PRORATED"
                $0.revocationPercentage = 33_333
            }
            let refund = try await Self.notify(client, server, type: "REFUND", transaction: refunded, signedDate: now - 4000)
            #expect(try Self.effect(refund) == "partially-revoked 1 of 3")
            // Two units remain: the grant already out keeps working, and a redeem still delivers.
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            let partly = try await Self.redeemed(client, jws)
            #expect(partly["transaction.quantity"]?.int == 3)
            #expect(partly["transaction.revokedQuantity"]?.int == 1)
            #expect(partly["transaction.revocation.type"]?.string == "refundProrated")
            #expect(partly["transaction.revocation.percentage"]?.int == 33_333)
            #expect(partly["transaction.revocation.at"]?.string != nil)
            #expect(partly["downloads"]?.array.count == 1)
            let report = try await Self.report(client, id)
            #expect(report["transaction.revokedQuantity"]?.int == 1)
            #expect(report["revoked"]?.bool == false)
            let refundedEvents = report["audit"]?.array.filter { $0["event"]?.string == "refunded" } ?? []
            #expect(refundedEvents.count == 1)
            #expect(refundedEvents.first?["detail"]?.string?.contains("refundProrated 33333 milliunits, 1 of 3 units revoked") == true)

            // Apple reverses the refund: the unit comes back.
            let (plain, _) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") {
                $0.transactionId = id
                $0.quantity = 3
                $0.signedDate = now - 3000
            }
            let reversal = try await Self.notify(client, server, type: "REFUND_REVERSED", transaction: plain, signedDate: now - 3000)
            #expect(try Self.effect(reversal) == "reinstated")
            let restored = try await Self.redeemed(client, jws)
            #expect(restored["transaction.revokedQuantity"]?.int == 0)
            #expect(restored["transaction.revocation"] == nil)

            // Every unit refunded: revoked as any refund is.
            let (whole, _) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") {
                $0.transactionId = id
                $0.quantity = 3
                $0.signedDate = now - 2000
                $0.revocationDate = now - 2000
                $0.revocationType = "REFUND_PRORATED"
                $0.revocationPercentage = 100_000
            }
            #expect(
                try Self.effect(try await Self.notify(client, server, type: "REFUND", transaction: whole, signedDate: now - 1000))
                    == "revoked")
            #expect(try await client.request(RawHTTPClient.get(url)).status == 403)
            _ = try await Self.redeemed(client, jws, status: 410)
            let revoked = try await Self.report(client, id)
            #expect(revoked["transaction.revokedQuantity"]?.int == 3)
            #expect(revoked["transaction.revocation.type"]?.string == "refundProrated")
        }
    }

    /// A signed transaction that already carries a prorated refund of one unit is recorded with that unit revoked,
    /// and delivers the rest.
    @Test(arguments: LedgerEngine.allCases)
    func aRedeemedTransactionCarryingAProratedRefundKeepsWhatRemains(engine: LedgerEngine) async throws {
        try await LiveServer.with(engine: engine, packs: Self.packs) { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, _) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") {
                $0.quantity = 3
                $0.revocationDate = Self.now() - 1000
                $0.revocationType = "REFUND_PRORATED"
                $0.revocationPercentage = 66_667
            }
            let answer = try await Self.redeemed(client, jws)
            #expect(answer["transaction.revokedQuantity"]?.int == 2)
            #expect(answer["downloads"]?.array.count == 1)
        }
    }

    /// A transaction carried by a notification of another type (here REFUND_DECLINED, Apple keeping the rest after
    /// an earlier prorated refund) is judged as at a redeem: the unit refunded is revoked, not every unit.
    @Test func aNotificationOfAnotherTypeRecordsItsRefundByUnits() async throws {
        try await LiveServer.with(packs: Self.packs) { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") { $0.quantity = 3 }
            _ = try await Self.redeemed(client, jws)
            let now = Self.now()
            let (carried, _) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") {
                $0.transactionId = id
                $0.quantity = 3
                $0.signedDate = now - 2000
                $0.revocationDate = now - 2000
                $0.revocationType = "REFUND_PRORATED"
                $0.revocationPercentage = 33_333
            }
            let declined = try await Self.notify(client, server, type: "REFUND_DECLINED", transaction: carried, signedDate: now - 1000)
            #expect(try Self.effect(declined) == "refund-declined")
            let answer = try await Self.redeemed(client, jws)
            #expect(answer["transaction.revokedQuantity"]?.int == 1)
        }
    }

    /// A prorated refund of a non-consumable revokes it by default, and keeps it (recorded) where its product's
    /// `refunds.prorated` says `keep`.
    @Test(arguments: LedgerEngine.allCases)
    func aProratedRefundOfANonConsumableFollowsItsProductsPolicy(engine: LedgerEngine) async throws {
        try await LiveServer.with(
            engine: engine,
            configure: { scratch in
                try scratch.write(
                    "Config/products.json",
                    """
                    {"products": [
                      {"id": "com.example.level1", "type": "nonConsumable", "title": "Level 1", "refunds": {"prorated": "keep"}},
                      {"id": "com.example.monthly", "type": "autoRenewable", "title": "Monthly"},
                      {"id": "com.example.premium", "type": "nonConsumable", "title": "Premium", "refunds": {"prorated": "revoke"}}
                    ]}
                    """)
            }
        ) { server in
            let client = try RawHTTPClient(port: server.port)
            for (product, kept) in [("com.example.level1", true), ("com.example.premium", false)] {
                let (jws, id) = try PurchaseSteps.sign(server, product: product, type: "Non-Consumable")
                _ = try await Self.redeemed(client, jws)
                let now = Self.now()
                let (refunded, _) = try PurchaseSteps.sign(server, product: product, type: "Non-Consumable") {
                    $0.transactionId = id
                    $0.signedDate = now - 2000
                    $0.revocationDate = now - 2000
                    $0.revocationType = "REFUND_PRORATED"
                    $0.revocationPercentage = 50_000
                }
                let effect = try Self.effect(
                    try await Self.notify(client, server, type: "REFUND", transaction: refunded, signedDate: now - 1000))
                #expect(effect == (kept ? "partially-revoked 0 of 1" : "revoked"), "\(product)")
                let answer = try await Self.redeemed(client, jws, status: kept ? 200 : 410)
                if kept {
                    #expect(answer["transaction.revokedQuantity"]?.int == 0)
                    #expect(answer["transaction.revocation.type"]?.string == "refundProrated")
                    #expect(answer["transaction.revocation.percentage"]?.int == 50_000)
                    #expect(answer["downloads"]?.array.isEmpty == false)
                }
            }
        }
    }

    @Test(arguments: LedgerEngine.allCases)
    func aFamilySharedPurchaseEntitlesUntilFamilyRevoke(engine: LedgerEngine) async throws {
        try await LiveServer.with(engine: engine, packs: Self.packs) { server in
            let client = try RawHTTPClient(port: server.port)
            let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
                $0.inAppOwnershipType = "FAMILY_SHARED"
            }
            let answer = try await Self.redeemed(client, jws)
            #expect(answer["transaction.ownership"]?.string == "familyShared")
            let url = try #require(answer["downloads.0.url"]?.string)
            #expect(try await client.request(RawHTTPClient.get(url)).status == 200)
            let report = try await Self.report(client, id)
            #expect(report["transaction.ownership"]?.string == "familyShared")
            #expect(report["audit"]?.array.first?["detail"]?.string?.contains("familyShared") == true)

            let now = Self.now()
            let (revoked, _) = try PurchaseSteps.sign(server, product: "com.example.level1", type: "Non-Consumable") {
                $0.transactionId = id
                $0.inAppOwnershipType = "FAMILY_SHARED"
                $0.signedDate = now - 2000
                $0.revocationDate = now - 2000
                $0.revocationType = "FAMILY_REVOKE"
            }
            #expect(
                try Self.effect(try await Self.notify(client, server, type: "REVOKE", transaction: revoked, signedDate: now - 1000))
                    == "revoked")
            #expect(try await client.request(RawHTTPClient.get(url)).status == 403)
            _ = try await Self.redeemed(client, jws, status: 410)
            let after = try await Self.report(client, id)
            #expect(after["transaction.revocation.type"]?.string == "familyRevoke")
            #expect(after["transaction.ownership"]?.string == "familyShared")

            // A subscription is shared as well: it entitles its period's issues to the family member.
            let (monthly, _) = try PurchaseSteps.sign(server, product: "com.example.monthly", type: "Auto-Renewable Subscription") {
                $0.inAppOwnershipType = "FAMILY_SHARED"
                $0.purchaseDate = 1_787_184_000_000  // 2026-08-20, a period holding the 2026-09-01 issue
                $0.expiresDate = 1_789_862_400_000
            }
            let subscription = try await Self.redeemed(client, monthly)
            #expect(subscription["transaction.ownership"]?.string == "familyShared")
            #expect(subscription["downloads.0.contentId"]?.string == "com.example.monthly.2026-09")
        }
    }

    /// Apple shares no consumable: one signed as family shared is refused, whether its payload or the catalog says
    /// it is a consumable, and nothing is recorded.
    @Test func aFamilySharedConsumableIsRefused() async throws {
        try await LiveServer.with(packs: Self.packs) { server in
            let client = try RawHTTPClient(port: server.port)
            let (signedAsConsumable, first) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") {
                $0.inAppOwnershipType = "FAMILY_SHARED"
            }
            let refused = try await client.request(PurchaseRequests.redeem(signedAsConsumable))
            #expect(refused.status == 400 && refused.text.contains("payload-inconsistent"), "\(refused.text)")
            let (catalogConsumable, second) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Non-Consumable") {
                $0.inAppOwnershipType = "FAMILY_SHARED"
            }
            let byCatalog = try await client.request(PurchaseRequests.redeem(catalogConsumable))
            #expect(byCatalog.status == 403 && byCatalog.text.contains("family-sharing-not-allowed"), "\(byCatalog.text)")
            for id in [first, second] {
                let report = try await client.request(RawHTTPClient.get("/v1/admin/transactions/\(id)", [AdminTests.admin]))
                #expect(report.status == 404)
            }
        }
    }

    /// Numbers out of bounds in a signed transaction are refused as malformed (400) at a redeem and at the
    /// notification route, never a 5xx.
    @Test func numbersOutOfBoundsAreRefusedWithA4xx() async throws {
        try await LiveServer.with(packs: Self.packs) { server in
            let client = try RawHTTPClient(port: server.port)
            let hostile: [[String: JSONValue]] = [
                ["revocationPercentage": .integer(100_001)], ["revocationPercentage": .integer(-1)],
                ["revocationPercentage": .string("a third")], ["revocationPercentage": .number(1e30)],
                ["revocationPercentage": .number(33_333.5)], ["quantity": .integer(0)], ["quantity": .integer(1_000_001)],
                ["quantity": .integer(-3)], ["quantity": .integer(Int64.max)],
            ]
            for fields in hostile {
                let (jws, id) = try PurchaseSteps.sign(server, product: "com.example.coins", type: "Consumable") {
                    $0.revocationDate = Self.now() - 1000
                    $0.revocationType = "REFUND_PRORATED"
                    $0.extraFields = fields
                }
                let redeem = try await client.request(PurchaseRequests.redeem(jws))
                #expect(redeem.status == 400 && redeem.text.contains("payload-malformed"), "\(fields): \(redeem.text)")
                let notified = try await Self.notify(client, server, type: "REFUND", transaction: jws, signedDate: Self.now())
                #expect((400...499).contains(notified.status), "\(fields): \(notified.text)")
                _ = id
            }
            #expect(try await client.request(RawHTTPClient.get("/healthz")).status == 200)
        }
    }
}
