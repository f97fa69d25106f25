import DepotAppStoreDouble
import DepotLedger
import DepotTrust
import Foundation
import Testing

/// The App Store double running for a test, with a development API key of its own under a scratch directory,
/// and the `appStoreServerAPI` configuration that points Depot at it.
struct AppStoreDoubleFixture {
    let double: AppStoreDouble
    let key: AppStoreDoubleKey
    /// `http://127.0.0.1:PORT`.
    let base: String

    /// The bundle id of the test configurations (`LiveServer`, `SharedInstances`).
    static let bundleId = "com.example.depot.test"

    /// Runs the double while `body` runs.
    static func with(
        _ name: String = #function, historyPageSize: Int = 20, _ body: (AppStoreDoubleFixture) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory(name + "-appstore-key")
        defer { scratch.remove() }
        let key = try AppStoreDoubleKey.loadOrCreate(dataDirectory: scratch.path)
        let double = AppStoreDouble(token: AppStoreDoubleToken(key: key, bundleId: bundleId), historyPageSize: historyPageSize)
        try await double.withRunning { base in
            try await body(AppStoreDoubleFixture(double: double, key: key, base: base))
        }
    }

    /// The `"appStoreServerAPI": {...}` member for `depot.json`: these environments sent to the double, the
    /// outbox looking for due jobs every 50 ms, retries after at most a second; the notification history
    /// backfill off unless an interval is given.
    func settings(
        environments: [String] = ["Production", "Sandbox"], base: String? = nil, leaseSeconds: Int = 120,
        historyIntervalSeconds: Int = 0, timeoutSeconds: Int = 60
    ) -> String {
        let urls = environments.map { "\"\($0)\": \"\(base ?? self.base)\"" }.joined(separator: ", ")
        return """
            "appStoreServerAPI": {"issuerId": "\(key.issuerId)", "keyId": "\(key.keyId)", "privateKeyPath": "\(key.privateKeyPath)",
             "baseURLs": {\(urls)}, "timeoutSeconds": \(timeoutSeconds),
             "outbox": {"pollIntervalMilliseconds": 50, "baseDelaySeconds": 1, "maxDelaySeconds": 1, "leaseSeconds": \(leaseSeconds)},
             "notificationHistory": {"intervalSeconds": \(historyIntervalSeconds)}}
            """
    }

    /// The Finish Transaction requests the double answered 200, by transaction id.
    func acknowledgedFinishes() -> [String: Int] {
        var counts: [String: Int] = [:]
        for request in double.requests where request.status == 200 && request.method == "POST" {
            let parts = request.path.split(separator: "/")
            guard parts.count == 5, parts[4] == "finish" else { continue }
            counts[String(parts[3]), default: 0] += 1
        }
        return counts
    }
}

/// Redeem, download and finish on a live server, as an app does.
enum PurchaseLoop {
    /// The transaction id, the finish answer and the download URLs (with their grants).
    static func buy(
        port: Int, dataDirectory: String, product: String = "com.example.level1", type: String = "Non-Consumable",
        environment: String = "Sandbox"
    ) async throws -> (id: String, finish: JSONAnswer, urls: [String]) {
        let client = try RawHTTPClient(port: port)
        let (jws, id) = try PurchaseRequests.sign(
            dataDirectory: dataDirectory, bundleId: AppStoreDoubleFixture.bundleId, product: product, type: type
        ) { $0.environment = environment }
        let redeemed = try await client.request(PurchaseRequests.redeem(jws))
        #expect(redeemed.status == 200, "\(redeemed.text)")
        let answer = try JSONAnswer(redeemed)
        let token = try #require(answer["transaction.finishToken"]?.string)
        var delivered: [(contentId: String, digest: String)] = []
        var urls: [String] = []
        for download in answer["downloads"]?.array ?? [] {
            let url = try #require(download["url"]?.string)
            urls.append(url)
            let bytes = try await client.request(RawHTTPClient.get(url))
            #expect(bytes.status == 200)
            delivered.append((try #require(download["contentId"]?.string), try #require(download["digest"]?.string)))
        }
        let finished = try await client.request(PurchaseRequests.finish(id, token: token, delivered: delivered))
        #expect(finished.status == 200, "\(finished.text)")
        return (id, try JSONAnswer(finished), urls)
    }
}

extension Ledger {
    /// The one outbox job of a transaction, when it is done.
    func appleJobIsDone(_ transactionId: String) async throws -> Bool {
        try await storeJobs(transactionId: transactionId).first?.state == .done
    }
}
