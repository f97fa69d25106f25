import DepotCore
import Foundation
import Testing

@testable import DepotTrust

/// Only Apple signs `Production` receipts: a receipt of that environment chaining to any other configured root
/// (the development receipt root, Xcode's StoreKit certificate) is refused unless the verifier trusts development
/// roots for it, as a configuration with `appStore.trustDevelopmentRoot` does.
@Suite("Production app receipts chain to Apple")
struct ReceiptProductionRootTests {
    @Test func aProductionReceiptOfADevelopmentRootIsRefusedUnlessDevelopmentIsTrusted() async throws {
        try await withTemporaryDirectory { path in
            let authority = try DevelopmentReceiptAuthority.loadOrCreate(directory: path + "/ca")
            var builder = DevelopmentReceiptBuilder(bundleId: "com.example.app", productId: "p", type: "nonConsumable")
            builder.receiptType = "Production"
            let production = try authority.sign(payload: try builder.payload())
            let environments: Set<String> = ["Production", "Sandbox"]

            // The development root configured as a receipt root, nothing more: its Production receipt is refused.
            let plain = try AppReceiptVerifier(
                trustedRootsDER: [authority.rootDER], bundleId: "com.example.app", acceptedEnvironments: environments)
            #expect(await receiptRefusal(plain, production)?.code == .chainUntrusted)
            // Beside Apple Root CA, still refused.
            let withApple = try AppReceiptVerifier(
                trustedRootsDER: [try GenuineReceipts.certificateDER("apple-inc-root.pem"), authority.rootDER],
                bundleId: "com.example.app", acceptedEnvironments: environments)
            #expect(await receiptRefusal(withApple, production)?.code == .chainUntrusted)

            // Its sandbox receipts are development's to sign.
            builder.receiptType = "ProductionSandbox"
            #expect(await receiptRefusal(plain, try authority.sign(payload: try builder.payload())) == nil)

            // Where development roots are trusted explicitly, the Production receipt is accepted.
            let development = try AppReceiptVerifier(
                trustedRootsDER: [authority.rootDER], bundleId: "com.example.app", acceptedEnvironments: environments,
                trustsDevelopmentProduction: true)
            #expect(await receiptRefusal(development, production) == nil)
        }
    }

    @Test func appleRootCAIsKnownByItsFingerprint() throws {
        #expect(AppleRootCA.isAppleRootCA(der: try GenuineReceipts.certificateDER("apple-inc-root.pem")))
        #expect(!AppleRootCA.isAppleRootCA(der: try GenuineReceipts.certificateDER("xcode-storekit-test-certificate.pem")))
        #expect(!AppleRootCA.isAppleRootCA(der: try GenuineReceipts.certificateDER("apple-wwdr-g5.pem")))
    }

    /// The genuine Production receipts chain to Apple Root CA, so they verify without any development trust.
    @Test func genuineProductionReceiptsNeedNoDevelopmentTrust() async throws {
        for name in ["production-2018-qrcodes-two-nonconsumables", "production-2024-pure-subscriptions"] {
            let bundleId = try #require(try GenuineReceipts.fields(name)["bundle_id"] as? String)
            let receipt = try await GenuineReceipts.verifier(bundleId: bundleId).verify(try GenuineReceipts.bytes(name))
            #expect(receipt.receiptType == "Production")
        }
    }
}
