import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import Testing

@testable import DepotAppStore

/// The App Store Server API client against a real HTTP double: Apple's token rules, retries honouring
/// Retry-After, final errors not retried, Apple's error bodies typed.
@Suite struct AppStoreServerAPIClientTests {
    static let key = P256.Signing.PrivateKey()
    static let now: Int64 = 1_790_000_000

    static func client(
        _ base: String, maxAttempts: Int = 4, timeoutSeconds: Int64 = 60, waits: NIOLockedValueBox<[Double]>
    ) throws -> AppStoreServerAPIClient {
        let signer = try AppStoreAPITokenSigner(
            keyId: "ABC123DEFG", issuerId: "57246542-96fe-1a63-e053-0824d011072a", bundleId: "com.example.depot",
            privateKeyPEM: key.pemRepresentation)
        return AppStoreServerAPIClient(
            signer: signer, baseURLs: .init(production: base + "/prod", sandbox: base + "/sandbox"), timeoutSeconds: timeoutSeconds,
            retry: AppStoreAPIRetryPolicy(maxAttempts: maxAttempts, baseDelaySeconds: 1, maxDelaySeconds: 30),
            clock: { now }, sleep: { seconds in waits.withLockedValue { $0.append(seconds) } }, random: { 0.5 })
    }

    @Test func finishSendsASignedPostAndRetriesAfterWhatAppleAsks() async throws {
        let double = AppStoreAPIDouble([
            .init(status: .serviceUnavailable, headers: [("Retry-After", "7")]),
            .init(status: .tooManyRequests),
            .init(status: .ok),
        ])
        let waits = NIOLockedValueBox<[Double]>([])
        try await double.run { base in
            try await Self.client(base, waits: waits).finishTransaction("2000000123456789", environment: "Sandbox")
        }
        let requests = double.requests
        #expect(requests.map(\.method) == ["POST", "POST", "POST"])
        #expect(requests.allSatisfy { $0.path == "/sandbox/inApps/v1/transactions/2000000123456789/finish" })
        // Retry-After first, then exponential backoff with jitter (0.5 of the second step's 2 s ceiling).
        #expect(waits.withLockedValue { $0 } == [7, 1])

        // The token: ES256 over header.claims, Apple's claims, verifiable with the key's public half.
        let token = try #require(requests.first?.authorization?.dropFirst("Bearer ".count))
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try Self.json(parts[0])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "ABC123DEFG")
        #expect(header["typ"] as? String == "JWT")
        let claims = try Self.json(parts[1])
        #expect(claims["iss"] as? String == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(claims["aud"] as? String == "appstoreconnect-v1")
        #expect(claims["bid"] as? String == "com.example.depot")
        let iat = try #require(claims["iat"] as? Int64)
        let exp = try #require(claims["exp"] as? Int64)
        #expect(iat == Self.now && exp > iat && exp - iat <= 3600)
        let signatureBytes = try #require(Self.base64URL(parts[2]))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        #expect(Self.key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        // One token for all three attempts: reused until shortly before it expires.
        #expect(Set(requests.map(\.authorization)).count == 1)
    }

    @Test func appleErrorsAreTypedAndOnlyRetryableOnesRetried() async throws {
        let double = AppStoreAPIDouble([
            .init(status: .notFound, body: #"{"errorCode": 4040010, "errorMessage": "Transaction id not found."}"#)
        ])
        let waits = NIOLockedValueBox<[Double]>([])
        try await double.run { base in
            let error = await #expect(throws: AppStoreAPIError.self) {
                try await Self.client(base, waits: waits).finishTransaction("42", environment: "Production")
            }
            #expect(error?.kind == .apple(status: 404, errorCode: 4040010, errorMessage: "Transaction id not found."))
            #expect(error?.isRetryable == false)
        }
        #expect(double.requests.count == 1)
        #expect(double.requests.first?.path == "/prod/inApps/v1/transactions/42/finish")
        #expect(waits.withLockedValue { $0 }.isEmpty)
    }

    @Test func retriesStopAtTheLimitWithTheLastError() async throws {
        let double = AppStoreAPIDouble([.init(status: .internalServerError, body: #"{"errorCode": 5000000, "errorMessage": "An unknown error occurred."}"#)])
        let waits = NIOLockedValueBox<[Double]>([])
        try await double.run { base in
            let error = await #expect(throws: AppStoreAPIError.self) {
                try await Self.client(base, maxAttempts: 3, waits: waits).finishTransaction("42", environment: "Production")
            }
            #expect(error?.kind == .apple(status: 500, errorCode: 5000000, errorMessage: "An unknown error occurred."))
            #expect(error?.attempts == 3)
        }
        #expect(double.requests.count == 3)
        #expect(waits.withLockedValue { $0 } == [0.5, 1])
    }

    @Test func transactionInfoReturnsTheSignedTransaction() async throws {
        let double = AppStoreAPIDouble([.init(status: .ok, body: #"{"signedTransactionInfo": "eyJ.eyJ.sig"}"#)])
        let waits = NIOLockedValueBox<[Double]>([])
        try await double.run { base in
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
