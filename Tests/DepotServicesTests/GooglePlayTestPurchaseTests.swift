import DepotCore
import DepotServices
import DepotTestSupport
import DepotTrust
import Testing

/// Google Play test purchases (a license tester's: no `orderId`, judged environment `Test`) are refused where test
/// purchases are not accepted (production, by default), as the App Store's Sandbox is, and accepted where they are;
/// offline, without the Developer API. Over a real SQLite ledger's catalog.
@Suite("Google Play test purchases")
struct GooglePlayTestPurchaseTests {
    static let packageName = "com.example.depot.test"

    static func verification(
        _ fixture: DeliveryFlowFixture, signer: GooglePlayTestSigner, acceptsTestPurchases: Bool
    ) throws -> PurchaseVerification {
        let root = try DevelopmentCertificateAuthority.loadOrCreate(directory: fixture.directory + "/dev-ca").rootDER
        let appStore = try AppStoreVerifier(
            trustedRootsDER: [root], bundleId: "com.example.depot.test", acceptedEnvironments: ["Production"])
        let googlePlay = GooglePlayVerifier(
            packageName: packageName, keys: [try GooglePlayLicenseKey(base64: signer.publicKeyBase64)],
            products: ["level1": DeliveryFlowFixture.levels], acceptsTestPurchases: acceptsTestPurchases)
        return PurchaseVerification(
            appStore: appStore, googlePlay: googlePlay, googlePlaySubscriptions: nil, catalogs: fixture.context.catalogs,
            refused: { _ in })
    }

    static func signed(_ signer: GooglePlayTestSigner, orderId: String?) throws -> SignedPurchase {
        let data = GooglePlayTestSigner.purchaseData(orderId: orderId, packageName: packageName, productId: "level1")
        return .googlePlay(purchaseData: data, signature: try signer.sign(data))
    }

    @Test func aTestPurchaseIsRefusedWhereTestPurchasesAreNotAccepted() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        let signer = try GooglePlayTestSigner()
        let production = try Self.verification(fixture, signer: signer, acceptsTestPurchases: false)
        await #expect {
            _ = try await production.verify(try Self.signed(signer, orderId: nil))
        } throws: { error in
            guard case .purchaseRefused(let refusal) = error as? DeliveryError else { return false }
            return refusal.code == "environment-not-accepted"
        }
        // A restore presenting it is refused the same way.
        await #expect(throws: DeliveryError.self) {
            _ = try await production.verifyDistinct([try Self.signed(signer, orderId: nil)])
        }
        // A purchase with an order id is a real one.
        let real = try await production.verify(try Self.signed(signer, orderId: "GPA.3301-2458-1199-40721"))
        #expect(real.transaction.environment == "Production")
    }

    @Test func aTestPurchaseIsAcceptedWhereTestPurchasesAre() async throws {
        let fixture = try await DeliveryFlowFixture.make()
        defer { fixture.remove() }
        let signer = try GooglePlayTestSigner()
        let development = try Self.verification(fixture, signer: signer, acceptsTestPurchases: true)
        let test = try await development.verify(try Self.signed(signer, orderId: nil))
        #expect(test.transaction.environment == "Test")
    }
}
