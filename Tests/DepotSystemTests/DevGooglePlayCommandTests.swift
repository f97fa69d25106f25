@testable import DepotServerTestSupport
import DepotGooglePlay
import DepotTestSupport
import Foundation
import Testing

/// `depot dev googleplay` as a person runs it: the first line of output is the `googlePlay.developerAPI` object,
/// the service account it names is made once under the data directory, Depot's own client signs in with it and
/// is answered as Google answers, and the control routes hold purchases and list what was received.
@Suite("depot dev googleplay")
struct DevGooglePlayCommandTests {
    @Test func printsItsConfigurationAndAnswersDepotsClient() async throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        let double = try await DevDoubleProcess.start(
            "googleplay", dataDirectory: scratch.path + "/data", arguments: ["--package-name", "com.example.game"])
        defer { double.terminate() }
        let keyPath = try #require(double.settings["serviceAccountKeyPath"] as? String)
        let base = try #require(double.settings["baseURL"] as? String)
        #expect(keyPath.hasPrefix(scratch.path + "/data/"))
        #expect(double.settings["tokenURL"] as? String == base + "/token")
        let account = try GooglePlayServiceAccount(keyFilePath: keyPath)
        #expect(account.tokenURI == base + "/token", "the key file names the running double's token endpoint")

        // A purchase held through the control route is acknowledged by Depot's client, signed in as the account.
        let http = try RawHTTPClient(port: DevDoubleProcess.port(of: base))
        let held = try await PurchaseSteps.post(
            http, "/_double/purchases",
            #"{"purchaseToken": "tok-1", "productId": "level1", "kind": "product", "orderId": "GPA.1234-5678-9012-34567"}"#)
        #expect(held.status == 200, "\(held.text)")
        #expect(try await PurchaseSteps.post(http, "/_double/purchases", #"{"purchaseToken": 5}"#).status == 400)
        // Numbers at their extremes are taken or refused, never trapped on: the process keeps answering.
        let far = try await PurchaseSteps.post(
            http, "/_double/purchases",
            #"{"purchaseToken": "far", "productId": "monthly", "kind": "subscription", "purchaseTimeMillis": 9223372036854775807}"#)
        #expect(far.status == 200, "\(far.text)")
        let forever = try await PurchaseSteps.post(
            http, "/_double/push-token", #"{"audience": "a", "email": "b", "expiresIn": 9223372036854775807}"#)
        #expect(forever.status == 400, "\(forever.text)")
        let client = GooglePlayDeveloperAPIClient(
            packageName: "com.example.game", tokens: try GooglePlayAccessTokens(account: account), baseURL: base)
        try await client.acknowledgeProduct(productId: "level1", purchaseToken: "tok-1")
        #expect(try await client.productPurchase(productId: "level1", purchaseToken: "tok-1").acknowledgementState == 1)
        let listed = try await http.request(RawHTTPClient.get("/_double/requests"))
        let requests = try #require(try JSONSerialization.jsonObject(with: Data(listed.body)) as? [[String: Any]])
        let paths = requests.compactMap { $0["path"] as? String }
        #expect(paths.first == "/token")
        #expect(paths.contains { $0.hasSuffix("/purchases/products/level1/tokens/tok-1:acknowledge") })
        // Another app's package is Google's 404.
        let other = GooglePlayDeveloperAPIClient(
            packageName: "com.other.app", tokens: try GooglePlayAccessTokens(account: account), baseURL: base)
        do {
            _ = try await other.productPurchase(productId: "level1", purchaseToken: "tok-1")
            Issue.record("another package was answered")
        } catch {
            #expect(error.kind == .google(status: 404, reason: "applicationNotFound", message: error.kindMessage))
        }
        await double.stop()

        // Started again, it keeps its service account.
        let again = try await DevDoubleProcess.start("googleplay", dataDirectory: scratch.path + "/data")
        defer { again.terminate() }
        #expect(again.settings["serviceAccountKeyPath"] as? String == keyPath)
        #expect(try GooglePlayServiceAccount(keyFilePath: keyPath).privateKeyId == account.privateKeyId)
        await again.stop()
    }
}

extension GooglePlayAPIError {
    /// Google's message, when Google answered.
    var kindMessage: String? {
        guard case .google(_, _, let message) = kind else { return nil }
        return message
    }
}
