import DepotCore
import DepotTestSupport
import Foundation
import Testing

@testable import DepotTrust

/// Google Play purchases checked offline: the genuine one kept outside the repository (`../shared/realworld`),
/// and purchases signed with a key made for the test.
@Suite("Google Play purchases verified offline")
struct GooglePlayVerifierTests {
    static let directory = GenuineAppleDataTests.directory.appendingPathComponent("google-play")

    static func genuine() throws -> (data: String, signature: String, key: String) {
        func text(_ name: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        }
        return (
            try text("01-subscription-sandbox.purchase.json"),
            try text("01-subscription-sandbox.signature").trimmingCharacters(in: .whitespacesAndNewlines),
            try text("app-public-key.base64")
        )
    }

    static func genuineVerifier() throws -> GooglePlayVerifier {
        GooglePlayVerifier(
            packageName: "com.topdox.android.trivialdrivesample2", keys: [try GooglePlayLicenseKey(base64: genuine().key)],
            products: ["topdox_android_monthly_subscription": "com.example.monthly"])
    }

    static func verifier(
        _ signers: [GooglePlayTestSigner], products: [String: String] = ["level1": "com.example.level1"]
    )
        throws -> GooglePlayVerifier
    {
        GooglePlayVerifier(
            packageName: "com.example.depot.test", keys: try signers.map { try GooglePlayLicenseKey(base64: $0.publicKeyBase64) },
            products: products)
    }

    static func refusal(_ verifier: GooglePlayVerifier, _ data: String, _ signature: String) -> PurchaseRefusal? {
        do {
            _ = try verifier.verify(purchaseData: data, signature: signature)
            return nil
        } catch {
            return error
        }
    }

    @Test func theGenuinePurchaseVerifies() throws {
        let genuine = try Self.genuine()
        let purchase = try Self.genuineVerifier().verify(purchaseData: genuine.data, signature: genuine.signature)
        #expect(purchase.store == .googlePlay)
        #expect(purchase.productId == "com.example.monthly")
        #expect(purchase.transaction.purchaseDate == 1_456_139_019_030)
        // It has no order id: its id is the purchase token's SHA-256.
        #expect(purchase.id.count == 64 && purchase.id == purchase.transaction.originalId)
        #expect(purchase.transaction.environment == "Test")
        #expect(purchase.transaction.expiresDate == nil)
    }

    @Test func everyChangedByteOfTheGenuinePurchaseIsRefused() throws {
        let genuine = try Self.genuine()
        let verifier = try Self.genuineVerifier()
        let bytes = Array(genuine.data.utf8)
        for index in bytes.indices {
            var changed = bytes
            changed[index] = changed[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let refusal = Self.refusal(verifier, String(decoding: changed, as: UTF8.self), genuine.signature)
            #expect(refusal?.code == "signature-invalid", "byte \(index)")
        }
    }

    @Test func theGenuinePurchaseReserializedOrWithANewlineIsRefused() throws {
        let genuine = try Self.genuine()
        let verifier = try Self.genuineVerifier()
        let object = try JSONSerialization.jsonObject(with: Data(genuine.data.utf8))
        let sorted = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        let spaced = genuine.data.replacingOccurrences(of: ",", with: ", ")
        for variant in [sorted, spaced, genuine.data + "\n", " " + genuine.data] {
            #expect(Self.refusal(verifier, variant, genuine.signature)?.code == "signature-invalid")
        }
        let signature = Array(Data(base64Encoded: genuine.signature)!)
        var flipped = signature
        flipped[100] ^= 1
        #expect(Self.refusal(verifier, genuine.data, Data(flipped).base64EncodedString())?.code == "signature-invalid")
        #expect(Self.refusal(verifier, genuine.data, Data(signature.dropLast()).base64EncodedString())?.code == "signature-invalid")
    }

    @Test func aPurchaseSignedWithTheAppsKeyVerifiesWithItsOrderId() throws {
        let signer = try GooglePlayTestSigner()
        let data = GooglePlayTestSigner.purchaseData(orderId: "GPA.1234-5678-9012-34567")
        let purchase = try Self.verifier([signer]).verify(purchaseData: data, signature: try signer.sign(data))
        #expect(purchase.id == "GPA.1234-5678-9012-34567")
        #expect(purchase.productId == "com.example.level1")
        #expect(purchase.transaction.environment == "Production")
        #expect(purchase.transaction.store == .googlePlay)
    }

    @Test func aRenewalsOrderNamesItsFirstOrder() throws {
        let signer = try GooglePlayTestSigner()
        let data = GooglePlayTestSigner.purchaseData(orderId: "GPA.1234-5678-9012-34567..3")
        let purchase = try Self.verifier([signer]).verify(purchaseData: data, signature: try signer.sign(data))
        #expect(purchase.id == "GPA.1234-5678-9012-34567..3")
        #expect(purchase.transaction.originalId == "GPA.1234-5678-9012-34567")
    }

    @Test func anyOfTheConfiguredKeysVerifies() throws {
        let old = try GooglePlayTestSigner(), new = try GooglePlayTestSigner()
        let verifier = try Self.verifier([old, new])
        let data = GooglePlayTestSigner.purchaseData()
        #expect(throws: Never.self) { try verifier.verify(purchaseData: data, signature: try old.sign(data)) }
        #expect(throws: Never.self) { try verifier.verify(purchaseData: data, signature: try new.sign(data)) }
        let other = try GooglePlayTestSigner()
        #expect(Self.refusal(verifier, data, try other.sign(data))?.code == "signature-invalid")
    }

    @Test func signaturesThatAreNotStandardBase64AreMalformed() throws {
        let signer = try GooglePlayTestSigner()
        let verifier = try Self.verifier([signer])
        let data = GooglePlayTestSigner.purchaseData()
        let signature = try signer.sign(data)
        let url = signature.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        if url != signature {
            #expect(Self.refusal(verifier, data, url)?.code == "signature-malformed")
        }
        #expect(Self.refusal(verifier, data, "")?.code == "signature-malformed")
        #expect(Self.refusal(verifier, data, "not base64!")?.code == "signature-malformed")
        #expect(Self.refusal(verifier, data, String(repeating: "A", count: 4_096))?.code == "signature-malformed")
        #expect(Self.refusal(verifier, data, String(signature.dropLast(8)))?.code != nil)
    }

    @Test func statesPackagesAndProductsAreChecked() throws {
        let signer = try GooglePlayTestSigner()
        let verifier = try Self.verifier([signer])
        func code(_ data: String) throws -> String? { Self.refusal(verifier, data, try signer.sign(data))?.code }
        #expect(try code(GooglePlayTestSigner.purchaseData(purchaseState: 2)) == "purchase-pending")
        #expect(try code(GooglePlayTestSigner.purchaseData(purchaseState: 1)) == "purchase-not-completed")
        #expect(try code(GooglePlayTestSigner.purchaseData(packageName: "com.other.app")) == "bundle-id-mismatch")
        #expect(try code(GooglePlayTestSigner.purchaseData(productId: "unmapped")) == "unknown-product")
        #expect(try code(GooglePlayTestSigner.purchaseData(orderId: "../etc")) == "purchase-data-malformed")
        #expect(try code("[1, 2]") == "purchase-data-malformed")
        #expect(try code("{\"packageName\": \"com.example.depot.test\"}") == "purchase-data-malformed")
    }

    @Test func numericFieldsAtTheirExtremesAreRefusedOrKeptInBounds() throws {
        let signer = try GooglePlayTestSigner()
        let verifier = try Self.verifier([signer])
        let base = GooglePlayTestSigner.purchaseData(purchaseTime: 1_772_355_600_000)
        for value in ExtremeNumbers.spellings + ["1e400", "-0.5", "\"x\"", "null", "true"] {
            for field in ["purchaseTime", "quantity", "purchaseState"] {
                // The original member follows under another name: the value tried is the one read.
                let data = base.replacingOccurrences(of: "\"\(field)\":", with: "\"\(field)\":\(value),\"was\(field)\":")
                do {
                    let purchase = try verifier.verify(purchaseData: data, signature: try signer.sign(data))
                    #expect((0...253_402_300_799_999).contains(purchase.transaction.purchaseDate), "\(field) = \(value)")
                    #expect((1...1_000_000).contains(purchase.transaction.quantity), "\(field) = \(value)")
                } catch {
                    let expected = ["purchase-data-malformed", "purchase-pending", "purchase-not-completed"]
                    #expect(expected.contains((error as? PurchaseRefusal)?.code ?? ""), "\(field) = \(value): \(error)")
                }
            }
        }
    }

    @Test func unknownFieldsAreIgnoredAndAnAccountUUIDIsKept() throws {
        let signer = try GooglePlayTestSigner()
        let account = UUID()
        let data = GooglePlayTestSigner.purchaseData(
            extra: "\"obfuscatedAccountId\":\"\(account.uuidString)\",\"somethingNew\":{\"a\":[1,2]},\"productIds\":[\"ignored\"]")
        let purchase = try Self.verifier([signer]).verify(purchaseData: data, signature: try signer.sign(data))
        #expect(purchase.transaction.appAccountToken == account.uuidString.lowercased())
        let single =
            "{\"packageName\":\"com.example.depot.test\",\"productIds\":[\"level1\"],\"purchaseTime\":1772355600000,\"purchaseState\":0,\"purchaseToken\":\"t\"}"
        #expect(
            try Self.verifier([signer]).verify(purchaseData: single, signature: try signer.sign(single)).productId == "com.example.level1")
    }

    @Test func anAppStorePurchaseIsNotGooglePlays() async throws {
        let verifier = try Self.verifier([try GooglePlayTestSigner()])
        await #expect(throws: PurchaseRefusal.self) { try await verifier.verifyPurchase(.appStore(jws: "a.b.c")) }
    }

    @Test func licenseKeysThatAreNotRSAKeysOfAtLeast2048BitsAreRefused() throws {
        #expect(throws: LicenseKeyError.self) { try GooglePlayLicenseKey(base64: "not base64!") }
        #expect(throws: LicenseKeyError.self) {
            try GooglePlayLicenseKey(base64: Data([0x30, 0x03, 0x02, 0x01, 0x00]).base64EncodedString())
        }
        #expect(throws: Never.self) { try GooglePlayLicenseKey(base64: try Self.genuine().key) }
    }
}
