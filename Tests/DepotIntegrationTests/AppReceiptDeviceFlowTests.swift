@testable import DepotServerTestSupport
import DepotLedger
import DepotServer
import DepotSettings
import DepotTestSupport
import DepotTrust
import Foundation
import Testing

/// The device check through a live server: a receipt presented with `deviceId` must have been issued to that
/// device, and `appStore.requireReceiptDevice` makes the device id required.
@Suite("App receipt device check on a live server")
struct AppReceiptDeviceFlowTests {
    static let device = "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"
    static let otherDevice = "0f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e"

    /// Runs `body` on the test server over `engine`'s ledger; `requireDevice` sets `appStore.requireReceiptDevice`.
    static func withServer(
        _ engine: LedgerEngine, requireDevice: Bool = false, name: String = #function, _ body: (LiveServer) async throws -> Void
    ) async throws {
        let configure: (ScratchDirectory) throws -> Void = { scratch in
            guard requireDevice else { return }
            let path = scratch.path + "/Config/depot.json"
            var depot = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            depot["appStore"] = ["trustDevelopmentRoot": true, "requireReceiptDevice": true]
            try scratch.write("Config/depot.json", Array(try JSONSerialization.data(withJSONObject: depot)))
        }
        switch engine {
        case .sqlite:
            try await LiveServer.with(name, configure: configure, body: body)
        case .postgres:
            try await PostgresTestDatabase.with(name) { database in
                try await LiveServer.with(
                    name, settings: "\"ledger\": {\"url\": \"\(database.url)\"}", configure: configure, body: body)
            }
        }
    }

    static func redeem(_ client: RawHTTPClient, _ body: [String: Any]) async throws -> RawHTTPClient.Response {
        try await PurchaseSteps.post(client, "/v1/transactions", try AppReceiptFixture.json(body))
    }

    @Test(arguments: LedgerEngine.tested)
    func theRightDeviceRedeemsAndAnotherIsRefusedWithNothingRecorded(engine: LedgerEngine) async throws {
        try await Self.withServer(engine) { server in
            let client = try RawHTTPClient(port: server.port)
            let device = try #require(UUID(uuidString: Self.device))
            let signed = try AppReceiptFixture.sign(server.application, product: "com.example.level1") { $0.deviceId = device }

            // Another device: refused, and the ledger never hears of the transaction.
            let wrong = try await Self.redeem(
                client, ["appReceipt": signed.receipt, "transactionId": signed.id, "deviceId": Self.otherDevice])
            #expect(wrong.status == 403, "\(wrong.text)")
            #expect(wrong.text.contains("receipt-device-mismatch"), "\(wrong.text)")
            #expect(try await server.application.ledger.transaction(id: signed.id) == nil)
            let wrongRestore = try await PurchaseSteps.post(
                client, "/v1/restore", try AppReceiptFixture.json(["appReceipt": signed.receipt, "deviceId": Self.otherDevice]))
            #expect(wrongRestore.status == 403, "\(wrongRestore.text)")
            #expect(try await server.application.ledger.transaction(id: signed.id) == nil)

            // Not a UUID: 400, and a device id without a receipt is a malformed request.
            for bad in ["not-a-uuid", "", "E621E1F8C36C495A93FC0C247A3E6E5F"] {
                let answer = try await Self.redeem(client, ["appReceipt": signed.receipt, "transactionId": signed.id, "deviceId": bad])
                #expect(answer.status == 400, "\(answer.text)")
                #expect(answer.text.contains("invalid-device-id"), "\(answer.text)")
            }
            let stray = try await Self.redeem(client, ["signedTransaction": "x.y.z", "deviceId": Self.device])
            #expect(stray.status == 400, "\(stray.text)")
            #expect(try await server.application.ledger.transaction(id: signed.id) == nil)

            // The device it was issued to (in either case): redeemed, then restored.
            let right = try await Self.redeem(
                client, ["appReceipt": signed.receipt, "transactionId": signed.id, "deviceId": Self.device.uppercased()])
            #expect(right.status == 200, "\(right.text)")
            #expect((try PurchaseSteps.object(right)["transaction"] as? [String: Any])?["id"] as? String == signed.id)
            #expect(try await server.application.ledger.transaction(id: signed.id) != nil)
            let restored = try await PurchaseSteps.post(
                client, "/v1/restore", try AppReceiptFixture.json(["appReceipt": signed.receipt, "deviceId": Self.device]))
            #expect(restored.status == 200, "\(restored.text)")
            #expect((try PurchaseSteps.object(restored)["transactions"] as? [[String: Any]])?.map { $0["id"] as? String } == [signed.id])

            // Without a device id the receipt alone decides, where the server does not require one.
            let without = try await Self.redeem(client, ["appReceipt": signed.receipt, "transactionId": signed.id])
            #expect(without.status == 200, "\(without.text)")
        }
    }

    @Test(arguments: LedgerEngine.tested)
    func aServerThatRequiresTheDeviceRefusesAReceiptWithoutIt(engine: LedgerEngine) async throws {
        try await Self.withServer(engine, requireDevice: true) { server in
            let client = try RawHTTPClient(port: server.port)
            let device = try #require(UUID(uuidString: Self.device))
            let signed = try AppReceiptFixture.sign(server.application, product: "com.example.level1") { $0.deviceId = device }
            let missing = try await Self.redeem(client, ["appReceipt": signed.receipt, "transactionId": signed.id])
            #expect(missing.status == 400, "\(missing.text)")
            #expect(missing.text.contains("receipt-device-required"), "\(missing.text)")
            let missingRestore = try await PurchaseSteps.post(
                client, "/v1/restore", try AppReceiptFixture.json(["appReceipt": signed.receipt]))
            #expect(missingRestore.status == 400, "\(missingRestore.text)")
            #expect(missingRestore.text.contains("receipt-device-required"), "\(missingRestore.text)")
            #expect(try await server.application.ledger.transaction(id: signed.id) == nil)

            let right = try await Self.redeem(
                client, ["appReceipt": signed.receipt, "transactionId": signed.id, "deviceId": Self.device])
            #expect(right.status == 200, "\(right.text)")
        }
    }

    /// A `Production` receipt signed by the development receipt root is refused where the development root is
    /// not trusted, though the same root is configured as a receipt root.
    @Test func aProductionReceiptOfTheDevelopmentRootNeedsTheDevelopmentTrust() async throws {
        let configure: (ScratchDirectory) throws -> Void = { scratch in
            let path = scratch.path + "/Config/depot.json"
            var depot = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            let authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: scratch.path + "/receipt-ca")
            try scratch.write("Config/receipt-root.der", authority.rootDER)
            depot["appStore"] = [
                "trustedRoots": [AppReceiptFixture.appleRootPath], "receiptRoots": [scratch.path + "/Config/receipt-root.der"],
                "environments": ["Production", "Sandbox"],
            ]
            try scratch.write("Config/depot.json", Array(try JSONSerialization.data(withJSONObject: depot)))
        }
        try await LiveServer.with(configure: configure) { server in
            let client = try RawHTTPClient(port: server.port)
            let authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: server.scratch.path + "/receipt-ca")
            var builder = DevelopmentReceiptBuilder(
                bundleId: server.application.configuration.appBundleId, productId: "com.example.level1", type: "nonConsumable")
            builder.receiptType = "Production"
            let production = Data(try authority.sign(payload: try builder.payload())).base64EncodedString()
            let refused = try await Self.redeem(client, ["appReceipt": production, "transactionId": builder.transactionId])
            #expect(refused.status == 403, "\(refused.text)")
            #expect(refused.text.contains("chain-untrusted"), "\(refused.text)")
            #expect(try await server.application.ledger.transaction(id: builder.transactionId) == nil)

            builder.receiptType = "ProductionSandbox"
            let sandbox = Data(try authority.sign(payload: try builder.payload())).base64EncodedString()
            let accepted = try await Self.redeem(client, ["appReceipt": sandbox, "transactionId": builder.transactionId])
            #expect(accepted.status == 200, "\(accepted.text)")
        }
    }
}
