import DepotCore
import Foundation
import Testing

@testable import DepotTrust

/// Every genuine receipt verifies with Apple Root CA at its creation date, and reads as the JSON beside it says.
@Suite("Genuine App Store app receipts")
struct GenuineReceiptTests {
    @Test(arguments: GenuineReceipts.appleSigned)
    func verifiesAndReadsAsDecoded(name: String) async throws {
        let expected = try GenuineReceipts.fields(name)
        let bundleId = try #require(expected["bundle_id"] as? String)
        // The real clock: every signing certificate has expired since, and the chain is judged at the creation date.
        let receipt = try await GenuineReceipts.verifier(bundleId: bundleId).verify(try GenuineReceipts.bytes(name))
        #expect(receipt.receiptType == expected["receipt_type"] as? String)
        #expect(receipt.bundleId == bundleId)
        #expect(Hex.lowercase(receipt.bundleIdDER) == expected["bundle_id_der_hex"] as? String)
        #expect(receipt.appVersion == expected["application_version"] as? String)
        #expect(Hex.lowercase(receipt.opaqueValue) == expected["opaque_value_hex"] as? String)
        #expect(Hex.lowercase(receipt.sha1Hash) == expected["sha1_hash_hex"] as? String)
        #expect(receipt.creationDate == GenuineReceipts.milliseconds(expected["receipt_creation_date"] as? String))
        #expect(receipt.originalAppVersion == expected["original_application_version"] as? String)
        let records = expected["in_app"] as? [[String: Any]] ?? []
        #expect(receipt.inAppPurchases.count == records.count)
        for (record, fields) in zip(receipt.inAppPurchases, records) {
            #expect(record.quantity == fields["quantity"] as? Int)
            #expect(record.productId == fields["product_id"] as? String)
            #expect(record.transactionId == fields["transaction_id"] as? String)
            #expect(record.originalTransactionId == fields["original_transaction_id"] as? String)
            #expect(record.purchaseDate == GenuineReceipts.milliseconds(fields["purchase_date"] as? String))
            #expect(record.originalPurchaseDate == GenuineReceipts.milliseconds(fields["original_purchase_date"] as? String))
            #expect(record.expiresDate == GenuineReceipts.milliseconds(fields["expires_date"] as? String))
            #expect(record.cancellationDate == GenuineReceipts.milliseconds(fields["cancellation_date"] as? String))
            let webOrder = (fields["web_order_line_item_id"] as? NSNumber)?.int64Value
            #expect(record.webOrderLineItemId == (webOrder == 0 ? nil : webOrder))
            #expect(record.productType == fields["product_type"] as? Int)
        }
    }

    @Test func sandboxReceiptsAreInTheSandboxEnvironment() async throws {
        let name = "sandbox-2016-zhihu-consumable"
        let receipt = try await GenuineReceipts.verifier(bundleId: "com.zhihu.test").verify(try GenuineReceipts.bytes(name))
        #expect(receipt.environment == "Sandbox")
        let purchases = try await GenuineReceipts.verifier(bundleId: "com.zhihu.test")
            .verifyPurchases(base64: Data(try GenuineReceipts.bytes(name)).base64EncodedString(options: .lineLength76Characters))
        #expect(purchases.map(\.id) == ["1000000225325901"])
        #expect(purchases.first?.store == .appStore)
        #expect(purchases.first?.transaction.environment == "Sandbox")
        #expect(purchases.first?.transaction.signedDate == receipt.creationDate)
    }

    @Test func xcodeReceiptVerifiesWithXcodesCertificateOnly() async throws {
        let name = "xcode-2023-backyardbirds-one-iap"
        let bundleId = "com.example.naturelab.backyardbirds.example"
        let xcode = try GenuineReceipts.certificateDER("xcode-storekit-test-certificate.pem")
        let receipt = try await GenuineReceipts.verifier(bundleId: bundleId, roots: [xcode]).verify(try GenuineReceipts.bytes(name))
        #expect(receipt.environment == "Xcode")
        #expect(receipt.inAppPurchases.map(\.productId) == ["pass.premium"])
        #expect(receipt.inAppPurchases.first?.originalTransactionId == "0")
        #expect(receipt.expirationDate == GenuineReceipts.milliseconds("4001-01-01T00:00:00Z"))
        let error = await receiptRefusal(try GenuineReceipts.verifier(bundleId: bundleId), try GenuineReceipts.bytes(name))
        #expect(error?.code == .chainUntrusted)
        let notAccepted = await receiptRefusal(
            try GenuineReceipts.verifier(bundleId: bundleId, roots: [xcode], environments: ["Production", "Sandbox"]),
            try GenuineReceipts.bytes(name))
        #expect(notAccepted?.code == .environmentNotAccepted)
    }
}

/// The verifier's refusal of `bytes`, nil when it accepts them.
func receiptRefusal(_ verifier: AppReceiptVerifier, _ bytes: [UInt8]) async -> AppStoreVerificationError? {
    do {
        _ = try await verifier.verify(bytes)
        return nil
    } catch {
        return error
    }
}
