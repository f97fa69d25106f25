import Foundation
import Testing

@testable import DepotTrust

@Suite("App Store signed data: server notifications")
struct AppStoreNotificationTests {
    static func notification(_ data: [String: JSONValue], _ overrides: [String: JSONValue] = [:]) -> [String: JSONValue] {
        var payload: [String: JSONValue] = [
            "notificationType": "REFUND",
            "notificationUUID": "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
            "version": "2.0",
            "signedDate": .integer(TestChain.signedDate + 5_000),
            "data": .object(data),
        ]
        payload.merge(overrides) { _, new in new }
        return payload
    }

    static func verify(
        _ verifier: AppStoreVerifier, _ jws: String
    ) async -> Result<
        SignedNotification, AppStoreVerificationError
    > {
        do throws(AppStoreVerificationError) {
            return .success(try await verifier.verifyNotification(jws))
        } catch {
            return .failure(error)
        }
    }

    @Test func notificationWithNestedSignedDataIsVerifiedAndDecoded() async throws {
        let chain = try TestChain()
        let transaction = TestChain.transaction([
            "type": "Auto-Renewable Subscription", "revocationDate": .integer(TestChain.signedDate + 4_000),
            "revocationReason": 0,
        ])
        let renewal: [String: JSONValue] = [
            "originalTransactionId": "2000000000000001", "productId": "com.example.level1", "autoRenewStatus": 0,
            "environment": "Sandbox", "signedDate": .integer(TestChain.signedDate),
        ]
        let payload = Self.notification(
            [
                "bundleId": "com.example.app", "environment": "Sandbox", "appAppleId": 1_234_567_890, "status": 1,
                "signedTransactionInfo": .string(try chain.sign(transaction)),
                "signedRenewalInfo": .string(try chain.sign(renewal)),
            ], ["subtype": "VOLUNTARY_FUTURE_THING"])
        let notification = try await chain.verifier().verifyNotification(try chain.sign(payload))
        #expect(notification.notificationType == "REFUND")
        #expect(notification.subtype == "VOLUNTARY_FUTURE_THING")
        #expect(notification.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(notification.signedDate == TestChain.signedDate + 5_000)
        #expect(notification.bundleId == "com.example.app")
        #expect(notification.environment == "Sandbox")
        #expect(notification.appAppleId == 1_234_567_890)
        #expect(notification.status == 1)
        #expect(notification.version == "2.0")
        let decoded = try #require(notification.transaction)
        #expect(decoded.transactionId == "2000000000000001")
        #expect(decoded.revocationDate == TestChain.signedDate + 4_000)
        #expect(decoded.revocationReason == 0)
        #expect(notification.renewalInfo?.autoRenewStatus == 0)
    }

    @Test func notificationWithoutNestedDataDecodes() async throws {
        let chain = try TestChain()
        let payload = Self.notification(
            ["bundleId": "com.example.app", "environment": "Sandbox"], ["notificationType": "TEST"])
        let notification = try await chain.verifier().verifyNotification(try chain.sign(payload))
        #expect(notification.notificationType == "TEST")
        #expect(notification.transaction == nil && notification.renewalInfo == nil && notification.subtype == nil)
    }

    @Test func summaryNotificationTakesAppFromSummary() async throws {
        let chain = try TestChain()
        var payload = Self.notification([:], ["notificationType": "RENEWAL_EXTENSION", "subtype": "SUMMARY"])
        payload["data"] = nil
        payload["summary"] = [
            "bundleId": "com.example.app", "environment": "Production", "requestIdentifier": "x", "succeededCount": 3,
        ]
        let notification = try await chain.verifier().verifyNotification(try chain.sign(payload))
        #expect(notification.environment == "Production")
    }

    @Test func nestedTransactionIsVerifiedOnItsOwn() async throws {
        let chain = try TestChain()
        let stranger = try TestChain(.init(name: "Stranger"))
        let verifier = try chain.verifier()
        let cases: [(JSONValue, AppStoreVerificationError.Code)] = [
            (.string(try stranger.sign(TestChain.transaction())), .chainUntrusted),
            (.string(try chain.sign(TestChain.transaction(["bundleId": "com.example.other"]))), .bundleIdMismatch),
            (.string("not a jws"), .jwsMalformed),
            (.integer(5), .jwsMalformed),
            (.bool(true), .payloadMalformed),
        ]
        for (nested, code) in cases {
            let payload = Self.notification(
                ["bundleId": "com.example.app", "environment": "Sandbox", "signedTransactionInfo": nested])
            #expect(await Self.verify(verifier, try chain.sign(payload)).failureCode == code, "\(nested)")
        }
    }

    @Test func notificationItselfIsChecked() async throws {
        let chain = try TestChain()
        let other = try TestChain(.init(name: "Other"))
        let verifier = try chain.verifier(environments: ["Sandbox"])
        let good: [String: JSONValue] = ["bundleId": "com.example.app", "environment": "Sandbox"]
        let cases: [(String, AppStoreVerificationError.Code)] = [
            (try other.sign(Self.notification(good)), .chainUntrusted),
            (
                try chain.sign(Self.notification(["bundleId": "com.example.other", "environment": "Sandbox"])),
                .bundleIdMismatch
            ),
            (
                try chain.sign(Self.notification(["bundleId": "com.example.app", "environment": "Production"])),
                .environmentNotAccepted
            ),
            (try chain.sign(Self.notification(good, ["notificationUUID": nil])), .payloadMalformed),
            (try chain.sign(Self.notification(good, ["data": nil])), .payloadMalformed),
            (try chain.sign(Self.notification(good), header: ["alg": "HS256"]), .jwsUnsupportedAlgorithm),
        ]
        for (jws, code) in cases {
            #expect(await Self.verify(verifier, jws).failureCode == code)
        }
    }
}

extension Result where Failure == AppStoreVerificationError {
    var failureCode: AppStoreVerificationError.Code? {
        if case .failure(let error) = self { error.code } else { nil }
    }
}
