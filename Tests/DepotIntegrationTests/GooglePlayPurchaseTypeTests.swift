@testable import DepotServerTestSupport
import DepotGooglePlayDouble
import DepotTestSupport
import Foundation
import Testing

/// With the Developer API configured, Google's `purchaseType` decides what is a test purchase, not the presence of
/// an `orderId`: on a server that does not accept test purchases, a tester's purchase is refused (403
/// `environment-not-accepted`) even with an order id, while a promo code purchase, which has none, is a real one.
/// On both ledger engines, against the Google Play double.
@Suite("Google Play purchase types on live servers")
struct GooglePlayPurchaseTypeTests {
    /// Holds a one-time purchase of the level at the double with `purchaseType`, and signs its data (with
    /// `orderId`, or none).
    static func purchase(
        _ play: GooglePlayDoubleFixture, _ signer: GooglePlayTestSigner, purchaseType: Int?, orderId: String?
    ) throws -> (data: String, signature: String) {
        let token = "token-\(UUID().uuidString.lowercased())"
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        play.double.holdPurchase(
            GooglePlayDoublePurchase(
                purchaseToken: token, productId: "level1", orderId: orderId ?? GooglePlayDouble.makeOrderId(),
                purchaseTimeMillis: now, purchaseType: purchaseType))
        let data = GooglePlayTestSigner.purchaseData(
            orderId: orderId, packageName: GooglePlayFixture.packageName, productId: "level1", purchaseTime: now,
            purchaseToken: token)
        return (data, try signer.sign(data))
    }

    @Test(arguments: LedgerEngine.tested)
    func googlesPurchaseTypeDecidesWhatIsATestPurchase(engine: LedgerEngine) async throws {
        let signer = try GooglePlayTestSigner()
        try await GooglePlayDoubleFixture.with { play in
            let settings = play.settings(signer, acceptTestPurchases: false)
            try await GooglePlayFlowTests.withServer(engine, settings: settings) { server in
                let client = try RawHTTPClient(port: server.port)
                let cases: [(purchaseType: Int?, orderId: String?, status: Int, code: String?)] = [
                    (0, GooglePlayDouble.makeOrderId(), 403, "environment-not-accepted"),
                    (0, nil, 403, "environment-not-accepted"),
                    (1, nil, 200, nil),
                    (2, nil, 200, nil),
                    (nil, GooglePlayDouble.makeOrderId(), 200, nil),
                ]
                for item in cases {
                    let purchase = try Self.purchase(play, signer, purchaseType: item.purchaseType, orderId: item.orderId)
                    let answer = try await PurchaseSteps.post(
                        client, "/v1/transactions", try GooglePlayFlowTests.redeemBody(purchase.data, purchase.signature))
                    #expect(answer.status == item.status, "\(item): \(answer.text)")
                    if let code = item.code { #expect(PublisherRequests.errorCode(answer) == code, "\(item)") }
                }
            }
        }
    }
}
