import Foundation
import Testing

@testable import DepotTrust

@Suite("App Store transactions: ids and dates that cannot be true are refused")
struct AppStorePayloadConsistencyTests {
    static let signed = TestChain.signedDate
    static let skew = AppStoreClockSkew.milliseconds

    @Test(arguments: [
        ("digits", "2000000000000001", true),
        ("letters, dash, underscore, dot", "abc-DEF_1.2", true),
        ("64 characters", String(repeating: "7", count: 64), true),
        ("empty", "", false),
        ("65 characters", String(repeating: "7", count: 65), false),
        ("slash", "1/2", false),
        ("space", "1 2", false),
        ("percent", "1%2F", false),
        ("question mark", "1?grant=x", false),
        ("non-ASCII digit", "１２", false),
        ("NUL", "1\u{0}", false),
    ])
    func transactionIdsMustBeShortAndSafe(_ name: String, id: String, accepted: Bool) async throws {
        let chain = try TestChain()
        let verifier = try chain.verifier()
        for key in ["transactionId", "originalTransactionId"] {
            let jws = try chain.sign(TestChain.transaction([key: .string(id)]))
            let error = await refusal(verifier, jws)
            if accepted {
                #expect(error == nil, "\(name) \(key)")
            } else {
                #expect(error?.code == .payloadInconsistent, "\(name) \(key)")
            }
        }
    }

    @Test(arguments: [
        ("expires before purchase", signed - 2_000, signed - 2_001, false),
        ("expires long before purchase", signed - 1_000, 0, false),
        ("expires at purchase", signed - 1_000, signed - 1_000, true),
        ("expires after purchase", signed - 1_000, signed + 86_400_000, true),
    ])
    func expiryMustNotPrecedePurchase(_ name: String, purchase: Int64, expires: Int64, accepted: Bool) async throws {
        let chain = try TestChain()
        let payload = TestChain.transaction([
            "type": "Auto-Renewable Subscription", "purchaseDate": .integer(purchase), "expiresDate": .integer(expires),
        ])
        let error = await refusal(try chain.verifier(), try chain.sign(payload))
        #expect(accepted ? error == nil : error?.code == .payloadInconsistent, "\(name)")
    }

    @Test(arguments: [
        // Genuine Sandbox renewals carry a purchaseDate some seconds after their signedDate.
        ("33 seconds after signing", signed + 33_000, true),
        ("exactly the skew after signing", signed + skew, true),
        ("just beyond the skew", signed + skew + 1, false),
        ("years after signing", signed + 10 * 365 * 86_400_000, false),
        ("far before signing", 0, true),
    ])
    func purchaseMustNotFollowSigning(_ name: String, purchase: Int64, accepted: Bool) async throws {
        let chain = try TestChain()
        let payload = TestChain.transaction(["purchaseDate": .integer(purchase)])
        let error = await refusal(try chain.verifier(), try chain.sign(payload))
        #expect(accepted ? error == nil : error?.code == .payloadInconsistent, "\(name)")
    }

    @Test(arguments: [
        ("signed now", Int64(0), true),
        ("signed within the skew ahead", skew, true),
        ("signed just beyond the skew", skew + 1, false),
        ("signed in 2039", 2_185_000_000_000 - signed, false),
        ("signed at the end of time", AppStoreDate.milliseconds.upperBound - signed, false),
    ])
    func signedDateIsBoundedByTheClock(_ name: String, ahead: Int64, accepted: Bool) async throws {
        let chain = try TestChain()
        let now = Date(timeIntervalSince1970: Double(Self.signed) / 1000)
        let payload = TestChain.transaction(["signedDate": .integer(Self.signed + ahead)])
        let error = await refusal(try chain.verifier(now: now), try chain.sign(payload))
        #expect(accepted ? error == nil : error?.code == .signedInFuture, "\(name)")
    }

    /// A date outside 1970...9999 is no App Store date: refused as malformed before any comparison with it.
    @Test(arguments: [Int64.min, -1, AppStoreDate.milliseconds.upperBound + 1, Int64.max])
    func datesOutsideTheirRangeAreMalformed(_ date: Int64) async throws {
        let chain = try TestChain()
        for key in ["purchaseDate", "expiresDate", "revocationDate", "signedDate"] {
            let payload = TestChain.transaction(["type": "Auto-Renewable Subscription", key: .integer(date)])
            let error = await refusal(try chain.verifier(), try chain.sign(payload))
            #expect(error?.code == .payloadMalformed, "\(key) = \(date): \(String(describing: error))")
        }
    }

    @Test func futureSigningIsRefusedForEveryKindOfPayload() async throws {
        let chain = try TestChain()
        let verifier = try chain.verifier(now: Date(timeIntervalSince1970: Double(Self.signed) / 1000))
        let future = Self.signed + Self.skew + 1
        let renewal = try chain.sign([
            "originalTransactionId": "1", "productId": "p", "environment": "Sandbox", "signedDate": .integer(future),
        ])
        let error = await verificationError { () async throws(AppStoreVerificationError) in
            try await verifier.verifyRenewalInfo(renewal)
        }
        #expect(error?.code == .signedInFuture)
    }
}
