@testable import DepotServerTestSupport
import DepotAppStore
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `depot dev appstore` as a person runs it: the first line of output is the `appStoreServerAPI` object, the
/// key it names is made once under the data directory, the double checks tokens signed with that key, and the
/// control routes answer (and refuse bad input with 400).
@Suite("depot dev appstore")
struct DevAppStoreCommandTests {
    /// A running `depot dev appstore`.
    typealias RunningDouble = DevDoubleProcess

    static func start(dataDirectory: String) async throws -> RunningDouble {
        try await DevDoubleProcess.start("appstore", dataDirectory: dataDirectory)
    }

    @Test func printsItsConfigurationFirstAndChecksTokensMadeWithItsKey() async throws {
        let scratch = try ScratchDirectory(#function)
        defer { scratch.remove() }
        let double = try await Self.start(dataDirectory: scratch.path + "/data")
        defer { double.terminate() }
        let settings = double.settings
        let keyId = try #require(settings["keyId"] as? String)
        let issuerId = try #require(settings["issuerId"] as? String)
        let keyPath = try #require(settings["privateKeyPath"] as? String)
        #expect(keyPath.hasPrefix(scratch.path + "/data/appstore-double/") && keyPath.hasSuffix(".p8"))
        #expect(Set((settings["baseURLs"] as? [String: String])?.keys ?? [:].keys) == ["Production", "Sandbox", "Xcode", "LocalTesting"])
        let bundleId = try #require(settings["bundleId"] as? String)

        // A client signing with the printed key is accepted; the double records what it received.
        let signer = try AppStoreAPITokenSigner(
            keyId: keyId, issuerId: issuerId, bundleId: bundleId, privateKeyPEM: try String(contentsOfFile: keyPath, encoding: .utf8))
        let client = AppStoreServerAPIClient(
            signer: signer, baseURLs: .init(settings["baseURLs"] as? [String: String] ?? [:]), retry: AppStoreAPIRetryPolicy(maxAttempts: 1)
        )
        try await client.finishTransaction("2000000000000042", environment: "Sandbox")
        let http = try RawHTTPClient(port: double.port)
        let failing = try await http.request(PurchaseRequests.post("/_double/fail", #"{"count": 1, "status": 429, "retryAfter": 3}"#))
        #expect(failing.status == 200)
        let limited = await #expect(throws: AppStoreAPIError.self) {
            try await client.finishTransaction("2000000000000042", environment: "Sandbox")
        }
        #expect(limited?.kind == .apple(status: 429, errorCode: 4_290_000, errorMessage: "Rate limit exceeded."))
        #expect(limited?.retryAfter == "3")
        let invalid = await #expect(throws: AppStoreAPIError.self) { try await client.transactionInfo("abc", environment: "Sandbox") }
        #expect(invalid?.kind == .apple(status: 400, errorCode: 4_000_006, errorMessage: "Invalid transaction id."))
        let listed = try await http.request(RawHTTPClient.get("/_double/requests"))
        let requests = try #require(try JSONSerialization.jsonObject(with: Data(listed.body)) as? [[String: Any]])
        #expect(
            requests.map { $0["path"] as? String } == [
                "/inApps/v1/transactions/2000000000000042/finish", "/inApps/v1/transactions/2000000000000042/finish",
                "/inApps/v1/transactions/abc",
            ])
        #expect(requests.map { $0["status"] as? Int } == [200, 429, 400])
        #expect(requests.allSatisfy { $0["method"] != nil && $0["body"] != nil })
        // A request without a token is refused as Apple does, with no body.
        let bare = try await http.request(PurchaseRequests.post("/inApps/v1/transactions/1/finish", "{}"))
        #expect(bare.status == 401 && bare.body.isEmpty)
        // Bad control input is a 400 with the error shape, and changes nothing.
        for body in [#"{"count": 1, "status": 404}"#, #"{"count": -1, "status": 500}"#, "not json"] {
            let refused = try await http.request(PurchaseRequests.post("/_double/fail", body))
            #expect(refused.status == 400 && refused.text.contains("bad-failure-plan"), "\(body)")
        }
        try await client.finishTransaction("2000000000000043", environment: "Sandbox")

        // What Get Transaction Info and Get Notification History answer is held through the control routes.
        let held = try await http.request(
            PurchaseRequests.post(
                "/_double/transactions", #"{"transactionId": "2000000000000044", "signedTransactionInfo": "eyJ.eyJ.sig"}"#))
        #expect(held.status == 200, "\(held.text)")
        #expect(try await client.transactionInfo("2000000000000044", environment: "Sandbox") == "eyJ.eyJ.sig")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for payload in ["first.payload.sig", "second.payload.sig"] {
            let noted = try await http.request(PurchaseRequests.post("/_double/notifications", #"{"signedPayload": "\#(payload)"}"#))
            #expect(noted.status == 200, "\(noted.text)")
        }
        let page = try await client.notificationHistory(startDate: now - 60_000, endDate: now + 60_000, environment: "Sandbox")
        #expect(page.signedPayloads == ["first.payload.sig", "second.payload.sig"] && !page.hasMore)
        let inverted = await #expect(throws: AppStoreAPIError.self) {
            try await client.notificationHistory(startDate: now, endDate: now, environment: "Sandbox")
        }
        #expect(
            inverted?.kind
                == .apple(
                    status: 400, errorCode: 4_000_013,
                    errorMessage: "Invalid request. The end date precedes the start date or the dates are the same."))
        let tooOld = await #expect(throws: AppStoreAPIError.self) {
            try await client.notificationHistory(startDate: now - 200 * 86_400_000, endDate: now, environment: "Sandbox")
        }
        #expect(tooOld.map { "\($0.kind)" }?.contains("4000012") == true)
        let badToken = await #expect(throws: AppStoreAPIError.self) {
            try await client.notificationHistory(startDate: now - 1000, endDate: now, paginationToken: "x", environment: "Sandbox")
        }
        #expect(badToken.map { "\($0.kind)" }?.contains("4000014") == true)
        for (path, body) in [
            ("/_double/transactions", #"{"transactionId": "abc", "signedTransactionInfo": "x"}"#), ("/_double/notifications", "{}"),
        ] {
            let refused = try await http.request(PurchaseRequests.post(path, body))
            #expect(refused.status == 400 && refused.text.contains("\"error\""), "\(path)")
        }

        // A second start on the same data directory keeps the key, so the configuration stays valid.
        await double.stop()
        let again = try await Self.start(dataDirectory: scratch.path + "/data")
        defer { again.terminate() }
        #expect(again.settings["keyId"] as? String == keyId)
        #expect(again.settings["privateKeyPath"] as? String == keyPath)
        await again.stop()
    }
}

extension DevDoubleProcess {
    /// The App Store double's base URL (its Sandbox one; every environment has the same).
    var base: String { ((settings["baseURLs"] as? [String: String]) ?? [:])["Sandbox"] ?? "" }
    /// The App Store double's port.
    var port: Int { Self.port(of: base) }
}
