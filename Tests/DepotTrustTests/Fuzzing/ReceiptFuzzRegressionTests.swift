import DepotTestSupport
import Foundation
import Testing

@testable import DepotTrust

/// The `app-receipts` campaign's seeds and regressions replayed through its harness, with the genuine receipts of
/// `shared/realworld/app-receipts` it is seeded with at run time, as they are and as payloads the harness signs.
@Suite("Fuzz corpus and regressions replayed: app-receipts")
struct ReceiptFuzzRegressionTests {
    static func harness() throws -> ReceiptFuzzHarness {
        try ReceiptFuzzHarness(realworld: GenuineAppleDataTests.directory.path)
    }

    @Test func keptInputsKeepEveryInvariant() async throws {
        let harness = try Self.harness()
        let inputs = try FuzzInputs.inputs("app-receipts")
        #expect(inputs.count >= 3, "the seeds are missing: \(FuzzInputs.root.path)")
        for (name, bytes) in inputs {
            #expect(await harness.violations(bytes) == [], "\(name)")
        }
    }

    @Test func genuineReceiptsAndTheirPayloadsKeepEveryInvariant() async throws {
        let harness = try Self.harness()
        #expect(harness.genuinePayloads.count == 7)
        for name in GenuineReceipts.appleSigned + ["xcode-2023-backyardbirds-one-iap", "tampered-production-2024-pure-subscriptions"] {
            let bytes = try GenuineReceipts.bytes(name)
            #expect(await harness.violations(bytes) == [], "\(name)")
            let payload = try ReceiptEnvelope(bytes: bytes).payload
            #expect(await harness.violations([0x01] + payload) == [], "\(name) re-signed")
        }
    }

    @Test func theHarnessChecksBite() async throws {
        // A harness that did not know the genuine payloads reports a genuine receipt as passing unsigned.
        var blind = try Self.harness()
        blind = ReceiptFuzzHarness(copying: blind, genuinePayloads: [])
        let genuine = try GenuineReceipts.bytes("sandbox-2016-zhihu-consumable")
        #expect(await blind.violations(genuine) != [])
        // A receipt the harness signed verifies with a consistent answer, and its edits never change its payload.
        #expect(await blind.violations([0x01] + blind.signed.payload) == [])
        // A harness whose strict verifier trusted development for Production receipts reports the genuine Production
        // payloads it signs.
        let lax = ReceiptFuzzHarness(copying: blind, productionVerifier: blind.verifier)
        var builder = DevelopmentReceiptBuilder(bundleId: ReceiptFuzzHarness.bundleId, productId: "p", type: "nonConsumable")
        builder.receiptType = "Production"
        let production = try builder.payload()
        #expect(await blind.violations([0x01] + production) == [])
        #expect(await lax.violations([0x01] + production) != [])
        #expect(try await blind.verifier.verify(blind.signed.receipt).inAppPurchases.first?.transactionId == "2000000000000001")
        for offset in stride(from: 0, to: blind.signed.receipt.count, by: 37) {
            #expect(await blind.violations([0x02, UInt8(offset >> 8), UInt8(offset & 0xFF), 0x01]) == [], "offset \(offset)")
        }
    }
}

extension ReceiptFuzzHarness {
    /// `harness` with another verifier standing for one without development trust.
    init(copying harness: ReceiptFuzzHarness, productionVerifier: AppReceiptVerifier) {
        self.authority = harness.authority
        self.verifier = harness.verifier
        self.productionVerifier = productionVerifier
        self.genuinePayloads = harness.genuinePayloads
        self.anyApp = harness.anyApp
        self.signed = harness.signed
    }

    /// `harness` with another list of genuine payloads.
    init(copying harness: ReceiptFuzzHarness, genuinePayloads: Set<[UInt8]>) {
        self.authority = harness.authority
        self.verifier = harness.verifier
        self.productionVerifier = harness.productionVerifier
        self.genuinePayloads = genuinePayloads
        self.anyApp = harness.anyApp
        self.signed = harness.signed
    }
}
