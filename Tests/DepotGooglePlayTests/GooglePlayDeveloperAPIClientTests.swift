import DepotGooglePlay
import DepotGooglePlayDouble
import Foundation
import Testing

/// The Developer API client and its OAuth service-account flow, against the Google Play double.
@Suite("Google Play Developer API client")
struct GooglePlayDeveloperAPIClientTests {
    static let packageName = "com.example.game"

    /// Runs `body` with a client signed in as the double's service account.
    static func withClient(
        _ body: (GooglePlayDouble, GooglePlayDeveloperAPIClient, GooglePlayAccessTokens) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gp-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let account = try GooglePlayDoubleServiceAccount.loadOrCreate(dataDirectory: directory.path)
        let double = GooglePlayDouble(serviceAccount: account, packageName: packageName)
        try await double.withRunning { base in
            let serviceAccount = try GooglePlayServiceAccount(keyFilePath: try #require(account.keyFilePath))
            let tokens = try GooglePlayAccessTokens(account: serviceAccount)
            let client = GooglePlayDeveloperAPIClient(packageName: packageName, tokens: tokens, baseURL: base)
            try await body(double, client, tokens)
        }
    }

    static func hold(_ double: GooglePlayDouble, token: String, productId: String = "level1") {
        double.holdPurchase(
            GooglePlayDoublePurchase(
                purchaseToken: token, productId: productId, orderId: "GPA.1234-5678-9012-34567",
                purchaseTimeMillis: Int64(Date().timeIntervalSince1970 * 1000)))
    }

    @Test func aPurchaseIsAcknowledgedWithOneTokenForManyCalls() async throws {
        try await Self.withClient { double, client, _ in
            // A token with characters a path must escape still names its purchase.
            let token = "tok/en+with spaces"
            Self.hold(double, token: token)
            #expect(try await client.productPurchase(productId: "level1", purchaseToken: token).acknowledgementState == 0)
            try await client.acknowledgeProduct(productId: "level1", purchaseToken: token)
            let held = try await client.productPurchase(productId: "level1", purchaseToken: token)
            #expect(held.acknowledgementState == 1)
            #expect(held.orderId == "GPA.1234-5678-9012-34567")
            #expect(double.requests.filter { $0.path.hasPrefix("/token") }.count == 1)
        }
    }

    @Test func googlesRefusalsAreTypedWithTheirReason() async throws {
        try await Self.withClient { double, client, _ in
            Self.hold(double, token: "once")
            try await client.consumeProduct(productId: "level1", purchaseToken: "once")
            do throws(GooglePlayAPIError) {
                try await client.consumeProduct(productId: "level1", purchaseToken: "once")
                Issue.record("a second consume was answered 200")
            } catch {
                // The message is Google's sentence; the reason is what callers decide by.
                #expect(error.kind.status == 400 && error.kind.reason == "invalidPurchaseState")
            }
            do throws(GooglePlayAPIError) {
                _ = try await client.productPurchase(productId: "level1", purchaseToken: "unknown")
                Issue.record("an unknown token was answered")
            } catch {
                #expect(error.kind.status == 400 && error.kind.reason == "invalid")
                #expect(!error.isRetryable)
            }
            double.failNext(.init(count: 1, status: 503, retryAfter: 7))
            do throws(GooglePlayAPIError) {
                try await client.acknowledgeProduct(productId: "level1", purchaseToken: "once")
                Issue.record("a planned 503 was not seen")
            } catch {
                #expect(error.isRetryable)
                #expect(error.retryAfter == "7")
            }
        }
    }

    @Test func theVoidedPurchasesListIsReadPageByPage() async throws {
        try await Self.withClient { double, client, _ in
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            for index in 0..<3 {
                double.holdVoided(
                    GooglePlayDoubleVoidedPurchase(
                        purchaseToken: "voided-\(index)", orderId: "GPA.0000-0000-0000-0000\(index)",
                        purchaseTimeMillis: now - 120_000, voidedTimeMillis: now - 60_000 + Int64(index)))
            }
            let page = try await client.voidedPurchases(
                startTimeMillis: now - 3_600_000, endTimeMillis: now, pageToken: nil, includeSubscriptions: true)
            #expect(page.voidedPurchases?.map(\.purchaseToken) == ["voided-0", "voided-1", "voided-2"])
            #expect(page.voidedPurchases?.first?.voidedAtMillis == now - 60_000)
            let empty = try await client.voidedPurchases(
                startTimeMillis: now - 3_600_000, endTimeMillis: now - 3_000_000, pageToken: nil, includeSubscriptions: true)
            #expect(empty.voidedPurchases == nil)
        }
    }

    @Test func aKeyFileThatIsNotAServiceAccountsIsRefusedByName() throws {
        #expect(throws: GooglePlayAPIError(.configuration("the service account key file is not JSON"))) {
            try GooglePlayServiceAccount(keyFile: Data("not json".utf8))
        }
        #expect(throws: GooglePlayAPIError(.configuration("the key file's type is authorized_user, not service_account"))) {
            try GooglePlayServiceAccount(keyFile: Data(#"{"type": "authorized_user"}"#.utf8))
        }
        #expect(throws: GooglePlayAPIError(.configuration("the key file has no private_key in PEM form"))) {
            try GooglePlayServiceAccount(keyFile: Data(#"{"type": "service_account", "client_email": "a@b"}"#.utf8))
        }
        let account = try GooglePlayServiceAccount(
            keyFile: Data(
                #"{"type": "service_account", "client_email": "a@b", "private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}"#
                    .utf8))
        #expect(account.tokenURI == GooglePlayServiceAccount.googleTokenURI)
        #expect(throws: GooglePlayAPIError.self) { try GooglePlayAccessTokens(account: account) }
    }
}

extension GooglePlayAPIError.Kind {
    /// Google's status, when Google answered.
    var status: Int? {
        guard case .google(let status, _, _) = self else { return nil }
        return status
    }

    /// Google's reason, when it gave one.
    var reason: String? {
        guard case .google(_, let reason, _) = self else { return nil }
        return reason
    }
}
