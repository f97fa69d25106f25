import Foundation
import Testing

@testable import DepotClient

/// A StoreKit 1 purchase as DepotClient presents it: the receipt in base64, its transaction id and, when the app
/// gives it, the device's `identifierForVendor`.
@Suite struct PresentedReceiptTests {
    static func body(_ purchase: PresentedPurchase) throws -> [String: Any] {
        let data = try JSONEncoder().encode(purchase.redeemRequest(installed: [], appAccountToken: nil))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func theDeviceIdIsSentLowercasedBesideTheReceipt() throws {
        let device = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let body = try Self.body(.appReceipt(Data([0x30, 0x80]), transactionId: "1000000225325901", deviceId: device))
        #expect(body["appReceipt"] as? String == "MIA=")
        #expect(body["transactionId"] as? String == "1000000225325901")
        #expect(body["deviceId"] as? String == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
    }

    @Test func withoutADeviceIdNoneIsSent() throws {
        let body = try Self.body(.appReceipt(Data([0x30, 0x80]), transactionId: "1000000225325901"))
        #expect(body["deviceId"] == nil)
        #expect(body["appReceipt"] as? String == "MIA=")
    }
}
