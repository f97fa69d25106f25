import DepotGooglePlay
import DepotGooglePlayDouble
import Foundation
import Testing

/// A Google endpoint that refuses connections fails the call at once, however long the call's timeout: the client does
/// not keep trying to connect until the timeout has passed (a redeem that asks Google would wait that long).
@Suite("Google Play endpoints that refuse connections")
struct GooglePlayRefusedAPITests {
    /// Nothing listens on port 1 of the loopback address: a connection is refused.
    static let refusing = "http://127.0.0.1:1"
    /// Far beyond any test run: a call that waited for it would hold the run.
    static let hourLong: Int64 = 3_600

    @Test func aRefusedDeveloperAPIFailsTheCallAtOnce() async throws {
        try await GooglePlayDeveloperAPIClientTests.withClient { _, _, tokens in
            let client = GooglePlayDeveloperAPIClient(
                packageName: GooglePlayDeveloperAPIClientTests.packageName, tokens: tokens, baseURL: Self.refusing,
                timeoutSeconds: Self.hourLong)
            await #expect(throws: GooglePlayAPIError.self) {
                _ = try await client.productPurchase(productId: "level1", purchaseToken: "token")
            }
        }
    }

    @Test func aRefusedTokenEndpointFailsTheCallAtOnce() async throws {
        try await GooglePlayDeveloperAPIClientTests.withClient { _, _, _ in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gp-refused-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let account = try GooglePlayDoubleServiceAccount.loadOrCreate(dataDirectory: directory.path)
            let serviceAccount = try GooglePlayServiceAccount(keyFilePath: try #require(account.keyFilePath))
            let tokens = try GooglePlayAccessTokens(
                account: serviceAccount, tokenURL: Self.refusing + "/token", timeoutSeconds: Self.hourLong)
            let client = GooglePlayDeveloperAPIClient(
                packageName: GooglePlayDeveloperAPIClientTests.packageName, tokens: tokens, baseURL: Self.refusing,
                timeoutSeconds: Self.hourLong)
            await #expect(throws: GooglePlayAPIError.self) {
                _ = try await client.productPurchase(productId: "level1", purchaseToken: "token")
            }
        }
    }
}
