@testable import DepotServerTestSupport
import DepotTestSupport
import Foundation
import Testing

/// `depot dev sign-transaction` and `depot dev sign-notification` on the real binary produce the refunds of 2026 —
/// a quantity, a prorated refund by percentage, its reversal, a family-shared purchase — and a server takes them;
/// values out of bounds are refused before anything is signed.
@Suite("depot dev signing of refunds and family sharing")
struct DevRefundSigningTests {
    static let packs =
        LiveServer.standardPacks + [
            LiveServer.PackSpec(
                directory: "shop/coins", productId: "com.example.coins", files: ["coins.json": Array("{\"coins\": 500}".utf8)])
        ]

    @Test func signedRefundsAndSharingAreTakenByAServer() async throws {
        try await LiveServer.with(packs: Self.packs) { server in
            let binary = DepotProcess.debugBinary()
            let place = ["--config", server.scratch.path + "/Config", "--data-dir", server.scratch.path + "/data"]
            func sign(_ arguments: [String]) async throws -> String {
                let run = try await ExternalTool.run(binary, ["dev"] + arguments + place)
                #expect(run.status == 0, "\(arguments): \(run.error)")
                return try #require(run.output.split(separator: "\n").last.map(String.init))
            }
            func notify(_ payload: String) async throws -> String {
                let answer = try await PurchaseSteps.post(
                    try RawHTTPClient(port: server.port), "/v1/notifications/appstore", "{\"signedPayload\": \"\(payload)\"}")
                #expect(answer.status == 200, "\(answer.text)")
                return try JSONAnswer(answer)["effect"]?.string ?? ""
            }
            let client = try RawHTTPClient(port: server.port)
            let id = "2\(Int.random(in: 100_000_000_000_000...999_999_999_999_999))"
            let coins = try await sign([
                "sign-transaction", "--product", "com.example.coins", "--transaction-id", id, "--quantity", "3",
            ])
            let redeemed = try JSONAnswer(try await client.request(PurchaseRequests.redeem(coins)))
            #expect(redeemed["transaction.quantity"]?.int == 3)

            let refund = try await sign([
                "sign-notification", "--type", "REFUND", "--product", "com.example.coins", "--transaction-id", id, "--quantity", "3",
                "--revocation-type", "REFUND_PRORATED", "--revocation-percentage", "33333",
            ])
            #expect(try await notify(refund) == "partially-revoked 1 of 3")
            let reversal = try await sign([
                "sign-notification", "--type", "REFUND_REVERSED", "--product", "com.example.coins", "--transaction-id", id,
                "--quantity", "3",
            ])
            #expect(try await notify(reversal) == "reinstated")
            #expect(try JSONAnswer(try await client.request(PurchaseRequests.redeem(coins)))["transaction.revokedQuantity"]?.int == 0)

            let shared = try await sign(["sign-transaction", "--product", "com.example.level1", "--ownership-type", "FAMILY_SHARED"])
            let family = try JSONAnswer(try await client.request(PurchaseRequests.redeem(shared)))
            #expect(family["transaction.ownership"]?.string == "familyShared")

            for bad in [
                ["sign-transaction", "--product", "com.example.coins", "--revocation-percentage", "100001"],
                ["sign-transaction", "--product", "com.example.coins", "--revocation-percentage", "-1"],
                ["sign-transaction", "--product", "com.example.coins", "--quantity", "0"],
                ["sign-transaction", "--product", "com.example.level1", "--ownership-type", "NEIGHBOUR"],
                ["sign-transaction", "--product", "com.example.level1", "--revocation-type", "REFUND_SOME"],
                ["sign-transaction"],
            ] {
                let run = try await ExternalTool.run(binary, ["dev"] + bad + place)
                #expect(run.status != 0, "\(bad) was signed: \(run.output)")
            }
        }
    }
}
