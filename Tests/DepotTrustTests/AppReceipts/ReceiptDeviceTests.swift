import DepotCore
import Foundation
import Testing

@testable import DepotTrust

/// The device check of Apple's Receipt Validation Programming Guide: a receipt's SHA-1 hash (attribute 5) is that
/// of the device's `identifierForVendor`, the opaque value (attribute 4) and the bundle id's DER (attribute 2).
@Suite("App receipt device check")
struct ReceiptDeviceTests {
    static let device = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let otherDevice = UUID(uuidString: "0F1C2D3E-4A5B-4C6D-8E7F-901A2B3C4D5E")!

    @Test func theHashIsSHA1OfTheDeviceIdOpaqueValueAndBundleIdDER() throws {
        // Inputs of the genuine Xcode receipt (its opaque value and bundle id DER, as its JSON records them); the
        // expected digest was computed apart with Python's hashlib: sha1(uuid.bytes + opaque + bundle_der).
        let opaque = try #require(Hex.bytes("f2bff5fb0f000000"))
        let bundleDER = try #require(
            Hex.bytes("0c2b636f6d2e6578616d706c652e6e61747572656c61622e6261636b7961726462697264732e6578616d706c65"))
        let hash = AppReceipt.deviceHash(deviceId: Self.device, opaqueValue: opaque, bundleIdDER: bundleDER)
        #expect(Hex.lowercase(hash) == "6acb040a9783dc000eb96320c73097b572ef7acf")
    }

    @Test func aDevelopmentReceiptMatchesTheDeviceItWasIssuedToOnly() async throws {
        try await withTemporaryDirectory { path in
            let authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: path + "/ca")
            var builder = DevelopmentReceiptBuilder(bundleId: "com.example.app", productId: "com.example.level1", type: "nonConsumable")
            builder.deviceId = Self.device
            let receipt = Data(try authority.sign(payload: try builder.payload())).base64EncodedString()
            let verifier = try AppReceiptVerifier(
                trustedRootsDER: [authority.rootDER], bundleId: "com.example.app", acceptedEnvironments: ["Sandbox"])
            let verified = try await verifier.verify(Array(try #require(Data(base64Encoded: receipt))))
            #expect(verified.opaqueValue.count == 16)
            #expect(verified.sha1Hash.count == 20)
            #expect(verified.isIssued(toDevice: Self.device))
            #expect(!verified.isIssued(toDevice: Self.otherDevice))

            let purchases = try await verifier.verifyPurchases(base64: receipt, deviceId: Self.device)
            #expect(purchases.map(\.id) == [builder.transactionId])
            // Without a device id the receipt is taken as before (the check is the app's choice).
            #expect(try await verifier.verifyPurchases(base64: receipt).count == 1)
            await #expect(throws: PurchaseRefusal.receiptDeviceMismatch) {
                try await verifier.verifyPurchase(base64: receipt, transactionId: builder.transactionId, deviceId: Self.otherDevice)
            }

            // A receipt built without a device matches none.
            builder.deviceId = nil
            let unbound = Data(try authority.sign(payload: try builder.payload())).base64EncodedString()
            await #expect(throws: PurchaseRefusal.receiptDeviceMismatch) {
                try await verifier.verifyPurchases(base64: unbound, deviceId: Self.device)
            }
        }
    }

    @Test func aVerifierThatRequiresTheDeviceRefusesAReceiptWithoutIt() async throws {
        try await withTemporaryDirectory { path in
            let authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: path + "/ca")
            var builder = DevelopmentReceiptBuilder(bundleId: "com.example.app", productId: "com.example.level1", type: "nonConsumable")
            builder.deviceId = Self.device
            let receipt = Data(try authority.sign(payload: try builder.payload())).base64EncodedString()
            let verifier = try AppReceiptVerifier(
                trustedRootsDER: [authority.rootDER], bundleId: "com.example.app", acceptedEnvironments: ["Sandbox"],
                requiresDevice: true)
            await #expect(throws: PurchaseRefusal.receiptDeviceRequired) { try await verifier.verifyPurchases(base64: receipt) }
            // Refused before the receipt is read: even text that is no receipt.
            await #expect(throws: PurchaseRefusal.receiptDeviceRequired) { try await verifier.verifyPurchases(base64: "x") }
            #expect(try await verifier.verifyPurchases(base64: receipt, deviceId: Self.device).count == 1)
        }
    }

    /// The genuine receipts record no device id (the apps' identifierForVendor is not published), so no genuine
    /// receipt can be shown to match; each keeps its opaque value and hash, and refuses a device it was not
    /// issued to.
    @Test(arguments: GenuineReceipts.appleSigned)
    func aGenuineReceiptRefusesAnotherDevice(name: String) async throws {
        let bundleId = try #require(try GenuineReceipts.fields(name)["bundle_id"] as? String)
        let verifier = try GenuineReceipts.verifier(bundleId: bundleId)
        let receipt = try await verifier.verify(try GenuineReceipts.bytes(name))
        #expect(receipt.opaqueValue.count == 16)
        #expect(receipt.sha1Hash.count == 20)
        #expect(!receipt.isIssued(toDevice: Self.device))
        await #expect(throws: PurchaseRefusal.receiptDeviceMismatch) {
            try await verifier.verifyPurchases(
                base64: Data(try GenuineReceipts.bytes(name)).base64EncodedString(), deviceId: Self.otherDevice)
        }
    }

    @Test func anOversizedOpaqueValueIsRefusedAsMalformed() async throws {
        try await withTemporaryDirectory { path in
            let authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: path + "/ca")
            var builder = DevelopmentReceiptBuilder(bundleId: "com.example.app", productId: "p", type: "nonConsumable")
            builder.opaqueValue = Array(repeating: 7, count: 65)
            let verifier = try AppReceiptVerifier(
                trustedRootsDER: [authority.rootDER], bundleId: "com.example.app", acceptedEnvironments: ["Sandbox"])
            let error = await receiptRefusal(verifier, try authority.sign(payload: try builder.payload()))
            #expect(error?.code == .receiptMalformed)
        }
    }
}
