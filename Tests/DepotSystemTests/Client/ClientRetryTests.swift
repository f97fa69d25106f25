@testable import DepotServerTestSupport
import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// DepotClient gives up on a server that never lets a download finish: a bounded number of requests, with
/// pauses between them, then a typed error (and `depot fetch` exits with the status its help names).
@Suite("DepotClient retries a bounded number of times")
struct ClientRetryTests {
    static let binary = DepotProcess.debugBinary(filePath: (#filePath as NSString).deletingLastPathComponent)

    /// How the hostile server answers the bundle GET, the error code expected, and how many GETs it should see
    /// with four attempts allowed (a short body brings the file further once: its first answer is progress).
    @Test(arguments: [("416", "server", 4), ("short", "network", 5), ("empty", "network", 4)])
    func aServerThatNeverCompletesTheBundleIsLeftAfterBoundedAttempts(
        _ serving: String, _ code: String, _ requests: Int
    ) async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let scratch = try ScratchDirectory("client-retry-\(serving)")
        defer { scratch.remove() }
        let bundle = scratch.path + "/bundle.zip"
        try await HostileDepot.makeBundle(python, at: bundle, hostile: "none", escapeTo: "")
        let out = scratch.path + "/out"
        let server = try await HostileDepot.start(
            python, bundle: bundle, advertisedDigest: try await ClientTestSupport.sha256(python, bundle), out: out,
            logPath: scratch.path + "/server.log", serving: serving)
        defer { server.stop() }

        let client = DepotClient(
            server: URL(string: "http://127.0.0.1:\(server.port)")!,
            retry: RetryPolicy(attempts: 4, delaySeconds: 0.01, maxDelaySeconds: 0.04))
        let delivery = try await client.delivery(of: "signed", into: URL(fileURLWithPath: out))
        let error = await #expect(throws: DepotClientError.self) { try await delivery.run() }
        #expect(error?.code.rawValue == code, "\(String(describing: error))")
        if serving == "416" { #expect(error?.status == 416) }

        let log = try server.log()
        #expect(log.filter { $0["method"] as? String == "GET" }.count == requests, "\(log)")
        #expect(!log.contains { $0["finish"] != nil })
        #expect(!FileManager.default.fileExists(atPath: out + "/" + HostileDepot.contentId))
    }

    /// `depot fetch` with its own policy: 4 (refused by the server) for a server that answers only 416,
    /// 3 for one whose answers end before the bundle does.
    @Test(arguments: [("416", Int32(4)), ("empty", Int32(3))])
    func depotFetchGivesUpWithItsDocumentedStatus(_ serving: String, _ status: Int32) async throws {
        guard let python = ExternalTool.require("python3") else { return }
        let scratch = try ScratchDirectory("fetch-gives-up-\(serving)")
        defer { scratch.remove() }
        let bundle = scratch.path + "/bundle.zip"
        try await HostileDepot.makeBundle(python, at: bundle, hostile: "none", escapeTo: "")
        let out = scratch.path + "/out"
        let server = try await HostileDepot.start(
            python, bundle: bundle, advertisedDigest: try await ClientTestSupport.sha256(python, bundle), out: out,
            logPath: scratch.path + "/server.log", serving: serving)
        defer { server.stop() }

        let result = try await ExternalTool.run(
            Self.binary, ["fetch", "--server", "http://127.0.0.1:\(server.port)", "--transaction", "signed", "--out", out])
        #expect(result.status == status, "\(result.error)")
        #expect(result.error.contains("depot fetch: "))
        let gets = try server.log().filter { $0["method"] as? String == "GET" }.count
        #expect(gets == RetryPolicy().attempts, "\(gets)")
    }
}
