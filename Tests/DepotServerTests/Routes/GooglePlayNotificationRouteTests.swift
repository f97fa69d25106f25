@testable import DepotServer
@testable import DepotServerTestSupport
import Crypto
import DepotGooglePlayDouble
import DepotTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `GooglePlayNotificationRoute` through the router without a socket: off without `googlePlay.notifications`; on,
/// the push token, the body's limit and format, and the notifications answered without asking Google (a test
/// notification, another app's, a kind Depot does not follow). What Google confirms is in the integration tier.
@Suite("Google Play notification route without a socket")
struct GooglePlayNotificationRouteTests {
    static let token = "push-secret-route"

    /// Runs `body` with a router whose server takes Google Play notifications pushed with `token`; the Developer
    /// API's address answers nothing, so a test that reached Google would fail.
    static func withNotifications(
        _ name: String = #function, _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory(name)
        defer { scratch.remove() }
        let account = try GooglePlayDoubleServiceAccount.loadOrCreate(dataDirectory: scratch.path + "/account")
        let signer = try GooglePlayTestSigner()
        let digest = SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
        let settings = """
            "googlePlay": {"notifications": {"tokenSHA256": ["\(digest)"]}, "packageName": "\(GooglePlayFixture.packageName)",
              "licenseKeys": ["\(signer.publicKeyBase64)"], "products": {"level1": "com.example.level1"},
              "developerAPI": {"serviceAccountKeyPath": "\(account.keyFilePath ?? "")", "baseURL": "http://127.0.0.1:9",
                "tokenURL": "http://127.0.0.1:9/token"}}
            """
        let application = try await LiveServer.prepared(in: scratch, packs: RouterRequests.packs, settings: settings)
        let (router, _, _) = application.makeRouter()
        do {
            try await Application(router: router).test(.router) { client in try await body(client) }
        } catch {
            await application.close()
            throw error
        }
        await application.close()
    }

    /// A Pub/Sub push body carrying `notification` (the DeveloperNotification's JSON members).
    static func push(_ notification: String, packageName: String = GooglePlayFixture.packageName) -> String {
        GooglePlaySteps.push(notification, packageName: packageName)
    }

    /// POSTs `body` with `?token=` when `token` is given.
    static func post(_ client: any TestClientProtocol, _ body: String, token: String? = token) async throws -> TestResponse {
        try await RouterRequests.post(client, "/v1/notifications/googleplay" + (token.map { "?token=\($0)" } ?? ""), body)
    }

    @Test func withoutNotificationsConfiguredTheRouteIsOff() async throws {
        try await RoutedRequestTests.withRouter { _, client in
            let answer = try await Self.post(client, Self.push("\"testNotification\":{}"))
            try RouterRequests.expectJSON(answer, .notFound, code: "store-not-configured")
        }
    }

    @Test func theTokenIsRequiredAndChecked() async throws {
        try await Self.withNotifications { client in
            let test = Self.push("\"testNotification\":{\"version\":\"1.0\"}")
            try RouterRequests.expectJSON(try await Self.post(client, test, token: nil), .unauthorized, code: "notification-token-required")
            try RouterRequests.expectJSON(try await Self.post(client, test, token: ""), .unauthorized, code: "notification-token-required")
            try RouterRequests.expectJSON(try await Self.post(client, test, token: "wrong"), .forbidden, code: "notification-token-refused")
            let answered = try await Self.post(client, test)
            try RouterRequests.expectJSON(answered, .ok)
            #expect(try RoutedRequestTests.object(answered)["outcome"] as? String == "test")
        }
    }

    @Test func unreadableBodiesAre400AndLargeOnes413() async throws {
        try await Self.withNotifications { client in
            for body in ["{\"message\": {\"data\": \"%%%\"}}", "{\"message\": {}}", "{", "[]"] {
                try RouterRequests.expectJSON(try await Self.post(client, body), .badRequest, code: "bad-request")
            }
            let invalid = try await client.execute(
                uri: "/v1/notifications/googleplay?token=\(Self.token)", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(bytes: Array("{\"message\": \"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)))
            try RouterRequests.expectJSON(invalid, .badRequest, code: "bad-request")
            let large = try await Self.post(client, "{\"message\": \"\(String(repeating: "a", count: 64 * 1024))\"}")
            try RouterRequests.expectJSON(large, .contentTooLarge, code: "too-large")
        }
    }

    /// Any answer but 200 would have Pub/Sub deliver these again for days.
    @Test func notificationsDepotDoesNotFollowAreTakenAndLeftAlone() async throws {
        try await Self.withNotifications { client in
            for body in [
                Self.push("\"futureKindOfNotification\":{}"), Self.push("\"testNotification\":{}", packageName: "com.other.app"),
            ] {
                let answer = try await Self.post(client, body)
                try RouterRequests.expectJSON(answer, .ok)
                #expect(try RoutedRequestTests.object(answer)["outcome"] as? String == "ignored")
            }
        }
    }
}
