import Foundation
import Testing

@testable import DepotTrust

/// Genuine App Store JWS kept outside the repository (`../shared/realworld` from the repository root).
@Suite("Genuine App Store signed data, verified on a clock set to its signing time")
struct GenuineAppleDataTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/realworld")

    static func text(_ path: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
    }

    static func verifier(at milliseconds: Int64) throws -> AppStoreVerifier {
        let root = try Data(contentsOf: directory.appendingPathComponent("certs/AppleRootCA-G3.cer"))
        return try AppStoreVerifier(
            trustedRootsDER: [Array(root)], bundleId: "com.loki-project.loki-messenger",
            acceptedEnvironments: ["Sandbox"], now: { Date(timeIntervalSince1970: Double(milliseconds) / 1000) })
    }

    /// The renewal's `signedDate`; its `purchaseDate` is 33 seconds later, as Sandbox renewals can be.
    static let renewalSignedDate: Int64 = 1_759_302_518_835

    @Test func renewalVerifiesAtItsSigningTime() async throws {
        let jws = try Self.text("apple-signed/05a-session-DID_RENEW-signedTransactionInfo.jws")
        let transaction = try await Self.verifier(at: Self.renewalSignedDate).verifyTransaction(jws)
        #expect(transaction.transactionId == "2000001024998954")
        #expect(transaction.purchaseDate > transaction.signedDate)
        #expect(transaction.expiresDate.map { $0 > transaction.purchaseDate } == true)
    }

    @Test func renewalIsRefusedOnAClockBeforeItsSigningTime() async throws {
        let jws = try Self.text("apple-signed/05a-session-DID_RENEW-signedTransactionInfo.jws")
        let early = Self.renewalSignedDate - AppStoreClockSkew.milliseconds - 1
        let error = await refusal(try Self.verifier(at: early), jws)
        #expect(error?.code == .signedInFuture)
    }

    @Test func notificationAndItsNestedDataVerify() async throws {
        let jws = try Self.text("apple-signed/05-session-notification-DID_RENEW.jws")
        let notification = try await Self.verifier(at: Self.renewalSignedDate).verifyNotification(jws)
        #expect(notification.transaction?.originalTransactionId == "2000001024993299")
        #expect(notification.renewalInfo?.originalTransactionId == "2000001024993299")
    }
}
