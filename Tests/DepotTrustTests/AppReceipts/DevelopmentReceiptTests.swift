import DepotCore
import Foundation
import Testing

@testable import DepotTrust

/// Receipts signed by the development receipt authority: shaped as Apple's, trusted only where its root is.
@Suite("Development app receipts")
struct DevelopmentReceiptTests {
    @Test func aSignedReceiptVerifiesWithItsRootOnly() async throws {
        try await withTemporaryDirectory { path in try await signedReceiptVerifiesWithItsRootOnly(in: path) }
    }

    func signedReceiptVerifiesWithItsRootOnly(in path: String) async throws {
        let authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: path + "/dev-receipt-ca")
        var builder = DevelopmentReceiptBuilder(bundleId: "com.example.app", productId: "com.example.monthly", type: "autoRenewable")
        builder.transactionId = "2000000000000042"
        builder.originalTransactionId = "2000000000000040"
        builder.cancellationDate = builder.purchaseDate + 60_000
        builder.quantity = 3
        let receipt = try authority.sign(payload: try builder.payload())
        let verifier = try AppReceiptVerifier(
            trustedRootsDER: [authority.rootDER], bundleId: "com.example.app", acceptedEnvironments: ["Sandbox"])
        let verified = try await verifier.verify(receipt)
        #expect(verified.environment == "Sandbox")
        #expect(verified.creationDate == builder.creationDate)
        let record = try #require(verified.inAppPurchases.first)
        #expect(verified.inAppPurchases.count == 1)
        #expect(record.transactionId == "2000000000000042")
        #expect(record.originalTransactionId == "2000000000000040")
        #expect(record.productId == "com.example.monthly")
        #expect(record.purchaseDate == builder.purchaseDate)
        #expect(record.expiresDate == builder.expiresDate)
        #expect(record.cancellationDate == builder.cancellationDate)
        #expect(record.quantity == 3)
        #expect(record.productType == 3)
        let purchase = try record.purchase(in: verified)
        #expect(purchase.revocationDate == builder.cancellationDate)
        #expect(purchase.isRevoked)

        // The same files are loaded again, and an authority made elsewhere is not trusted.
        let again = try DevelopmentReceiptAuthority.loadOrCreate(directory: path + "/dev-receipt-ca")
        #expect(again.rootDER == authority.rootDER)
        let other = try DevelopmentReceiptAuthority.loadOrCreate(directory: path + "/other")
        let error = await receiptRefusal(verifier, try other.sign(payload: try builder.payload()))
        #expect(error?.code == .chainUntrusted)
    }

    @Test func aReceiptOfAnotherAppIsRefused() async throws {
        try await withTemporaryDirectory { path in try await receiptOfAnotherAppIsRefused(in: path) }
    }

    func receiptOfAnotherAppIsRefused(in path: String) async throws {
        let authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: path + "/ca")
        let builder = DevelopmentReceiptBuilder(bundleId: "com.example.other", productId: "p", type: "nonConsumable")
        let verifier = try AppReceiptVerifier(
            trustedRootsDER: [authority.rootDER], bundleId: "com.example.app", acceptedEnvironments: ["Sandbox"])
        let error = await receiptRefusal(verifier, try authority.sign(payload: try builder.payload()))
        #expect(error?.code == .bundleIdMismatch)
    }
}
