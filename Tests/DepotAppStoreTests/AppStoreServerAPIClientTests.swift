import AsyncHTTPClient
import Crypto
import DepotAppStoreDouble
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import DepotAppStore

/// The App Store Server API client against the App Store double (a real HTTP server that checks every token
/// independently of the client): Apple's token rules, retries honouring Retry-After, final errors not retried,
/// Apple's error bodies typed.
@Suite struct AppStoreServerAPIClientTests {
    static let key = P256.Signing.PrivateKey()
    static let keyId = "ABC123DEFG"
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"
    static let bundleId = "com.example.depot"

    /// A double that accepts tokens signed with `key` at the real time.
    static func double() -> AppStoreDouble {
        AppStoreDouble(token: AppStoreDoubleToken(keyId: keyId, issuerId: issuerId, bundleId: bundleId, publicKey: key.publicKey))
    }

    static func client(
        _ base: String, maxAttempts: Int = 4, timeoutSeconds: Int64 = 60, signingKey: P256.Signing.PrivateKey = key,
        clockOffset: Int64 = 0, waits: NIOLockedValueBox<[Double]>
    ) throws -> AppStoreServerAPIClient {
        let signer = try AppStoreAPITokenSigner(
            keyId: keyId, issuerId: issuerId, bundleId: bundleId, privateKeyPEM: signingKey.pemRepresentation)
        return AppStoreServerAPIClient(
            signer: signer, baseURLs: .init(production: base + "/", sandbox: base), timeoutSeconds: timeoutSeconds,
            retry: AppStoreAPIRetryPolicy(maxAttempts: maxAttempts, baseDelaySeconds: 1, maxDelaySeconds: 30),
            clock: { Int64(Date().timeIntervalSince1970) + clockOffset },
            sleep: { seconds in waits.withLockedValue { $0.append(seconds) } }, random: { 0.5 })
    }

    @Test func finishIsAcceptedByTheDoubleAndRetriedAfterWhatAppleAsks() async throws {
        let double = Self.double()
        double.failNext(.init(count: 1, status: 503, retryAfter: 7))
        double.failNext(.init(count: 1, status: 429, retryAfter: nil))
        let waits = NIOLockedValueBox<[Double]>([])
        try await double.withRunning { base in
            try await Self.client(base, waits: waits).finishTransaction("2000000123456789", environment: "Sandbox")
        }
        let requests = double.requests
        #expect(requests.map(\.status) == [503, 429, 200])
        #expect(requests.allSatisfy { $0.method == "POST" && $0.path == "/inApps/v1/transactions/2000000123456789/finish" })
        #expect(requests.allSatisfy { $0.refusal == nil })
        // Retry-After first, then exponential backoff with jitter (0.5 of the second step's 2 s ceiling).
        #expect(waits.withLockedValue { $0 } == [7, 1])
    }

    @Test func theSignerFollowsApplesTokenRulesAndReusesItsToken() async throws {
        let signer = try AppStoreAPITokenSigner(
            keyId: Self.keyId, issuerId: Self.issuerId, bundleId: Self.bundleId, privateKeyPEM: Self.key.pemRepresentation)
        let now: Int64 = 1_790_000_000
        let token = try await signer.token(now: now)
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try Self.json(parts[0])
        #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == Self.keyId && header["typ"] as? String == "JWT")
        let claims = try Self.json(parts[1])
        #expect(claims["iss"] as? String == Self.issuerId)
        #expect(claims["aud"] as? String == "appstoreconnect-v1")
        #expect(claims["bid"] as? String == Self.bundleId)
        let iat = try #require(claims["iat"] as? Int64)
        let exp = try #require(claims["exp"] as? Int64)
        #expect(iat == now && exp > iat && exp - iat <= 3600)
        // The double's independent check accepts it while valid, refuses it once expired.
        let check = AppStoreDoubleToken(keyId: Self.keyId, issuerId: Self.issuerId, bundleId: Self.bundleId, publicKey: Self.key.publicKey)
        #expect(check.refusal(authorization: "Bearer " + token, now: now) == nil)
        #expect(check.refusal(authorization: "Bearer " + token, now: exp) == "expired")
        // Reused until shortly before it expires, then renewed.
        #expect(try await signer.token(now: now + 60) == token)
        #expect(try await signer.token(now: exp - 10) != token)
    }

    @Test func expiredOrWronglySignedTokensAreRefusedByTheDouble() async throws {
        let double = Self.double()
        let waits = NIOLockedValueBox<[Double]>([])
        try await double.withRunning { base in
            // A token made two hours ago has expired; one signed with another key does not verify.
            for client in [
                try Self.client(base, clockOffset: -7200, waits: waits),
                try Self.client(base, signingKey: P256.Signing.PrivateKey(), waits: waits),
            ] {
                let error = await #expect(throws: AppStoreAPIError.self) {
                    try await client.finishTransaction("2000000000000001", environment: "Production")
                }
                #expect(error?.kind == .apple(status: 401, errorCode: nil, errorMessage: nil))
                #expect(error?.isRetryable == false)
            }
            try await Self.client(base, waits: waits).finishTransaction("2000000000000001", environment: "Production")
        }
        #expect(double.requests.map(\.status) == [401, 401, 200])
        #expect(double.requests.map(\.refusal) == ["expired", "signature does not verify with the double's key", nil])
        #expect(waits.withLockedValue { $0 }.isEmpty)
    }

    @Test func appleErrorsAreTypedAndOnlyRetryableOnesRetried() async throws {
        let double = Self.double()
        let waits = NIOLockedValueBox<[Double]>([])
        try await double.withRunning { base in
            let error = await #expect(throws: AppStoreAPIError.self) {
                try await Self.client(base, waits: waits).transactionInfo("42", environment: "Production")
            }
            #expect(error?.kind == .apple(status: 404, errorCode: 4_040_010, errorMessage: "Transaction id not found."))
            #expect(error?.isRetryable == false)
        }
        #expect(double.requests.map(\.path) == ["/inApps/v1/transactions/42"])
        #expect(waits.withLockedValue { $0 }.isEmpty)
    }

    @Test func retriesStopAtTheLimitWithTheLastError() async throws {
        let double = Self.double()
        double.failNext(.init(count: 10, status: 500, retryAfter: nil))
        let waits = NIOLockedValueBox<[Double]>([])
        try await double.withRunning { base in
            let error = await #expect(throws: AppStoreAPIError.self) {
                try await Self.client(base, maxAttempts: 3, waits: waits).finishTransaction("42", environment: "Production")
            }
            #expect(error?.kind == .apple(status: 500, errorCode: 5_000_000, errorMessage: "An unknown error occurred."))
            #expect(error?.attempts == 3)
        }
        #expect(double.requests.count == 3)
        #expect(waits.withLockedValue { $0 } == [0.5, 1])
    }

    @Test func transactionInfoReturnsTheSignedTransaction() async throws {
        let double = Self.double()
        double.holdTransaction("7", signedTransactionInfo: "eyJ.eyJ.sig")
        let waits = NIOLockedValueBox<[Double]>([])
        try await double.withRunning { base in
            let jws = try await Self.client(base, waits: waits).transactionInfo("7", environment: "Production")
            #expect(jws == "eyJ.eyJ.sig")
        }
        #expect(double.requests.map(\.method) == ["GET"])
    }

    @Test func unreachableAndRefusedInputs() async throws {
        let waits = NIOLockedValueBox<[Double]>([])
        // Nothing listens on port 9 of loopback: the client keeps trying to connect until the call's timeout,
        // then retries, then reports a retryable failure.
        let client = try Self.client("http://127.0.0.1:9", maxAttempts: 2, timeoutSeconds: 1, waits: waits)
        let error = await #expect(throws: AppStoreAPIError.self) {
            try await client.finishTransaction("1", environment: "Production")
        }
        #expect(error?.attempts == 2)
        #expect(error?.isRetryable == true)
        // Environments without a base URL are never sent anywhere.
        for (id, environment) in [("1/../2", "Production"), ("", "Production"), ("1", "Xcode"), ("1", "LocalTesting")] {
            await #expect(throws: AppStoreAPIError.self) { try await client.finishTransaction(id, environment: environment) }
        }
        #expect(throws: AppStoreAPIError.self) {
            try AppStoreAPITokenSigner(keyId: "K", issuerId: "I", bundleId: "B", privateKeyPEM: "not a key")
        }
    }

    @Test func retryPolicyTable() {
        let policy = AppStoreAPIRetryPolicy(maxAttempts: 5, baseDelaySeconds: 1, maxDelaySeconds: 10)
        let busy = AppStoreAPIError(.apple(status: 503, errorCode: nil, errorMessage: nil))
        let final = AppStoreAPIError(.apple(status: 401, errorCode: nil, errorMessage: nil))
        #expect(policy.delay(after: busy, attempt: 1, retryAfter: nil, random: { 0.999 })! < 1)
        #expect(policy.delay(after: busy, attempt: 4, retryAfter: nil, random: { 1 }) == 8)
        #expect(policy.delay(after: busy, attempt: 5, retryAfter: nil, random: { 1 }) == nil)
        #expect(policy.delay(after: busy, attempt: 1, retryAfter: " 3 ", random: { 0 }) == 3)
        // A Retry-After beyond the longest wait gives up now rather than holding the caller.
        #expect(policy.delay(after: busy, attempt: 1, retryAfter: "3600", random: { 0 }) == nil)
        // Unreadable Retry-After values fall back to backoff.
        for field in ["-1", "1.5", "Wed, 21 Oct 2015 07:28:00 GMT", "", "99999999999"] {
            #expect(policy.delay(after: busy, attempt: 2, retryAfter: field, random: { 1 }) == 2, "\(field)")
        }
        #expect(policy.delay(after: final, attempt: 1, retryAfter: "1", random: { 0 }) == nil)
    }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    static func json(_ part: String) throws -> [String: Any] {
        let data = try #require(base64URL(part))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
