import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// What the client tests share: a client of a server, the files of an installed content, a digest.
enum ClientTestSupport {
    /// A client of the server on `port`. A request waits `requestTimeoutSeconds` for a byte: longer than an app's
    /// default 60 s, since the suite's servers answer late on a loaded machine, which these tests do not measure;
    /// a test of a stalled connection gives the default.
    static func client(port: Int, requestTimeoutSeconds: TimeInterval = 300) -> DepotClient {
        DepotClient(
            server: URL(string: "http://127.0.0.1:\(port)")!,
            session: DepotClient.makeSession(requestTimeoutSeconds: requestTimeoutSeconds),
            retry: RetryPolicy(attempts: 5, delaySeconds: 0.05))
    }

    /// The files under `folder/Contents`, by path relative to it.
    static func contents(of folder: String) throws -> [String: [UInt8]] {
        let root = folder + "/Contents"
        var files: [String: [UInt8]] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        for case let relative as String in enumerator {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory)
            if !isDirectory.boolValue {
                files[relative] = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)))
            }
        }
        return files
    }

    /// Every directory under `folder/Contents`, relative to it.
    static func directories(of folder: String) throws -> Set<String> {
        let root = folder + "/Contents"
        var found: Set<String> = []
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        for case let relative as String in enumerator {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory)
            if isDirectory.boolValue { found.insert(relative) }
        }
        return found
    }

    /// The directories a set of file paths implies.
    static func parents(of files: some Sequence<String>) -> Set<String> {
        var found: Set<String> = []
        for file in files {
            var parts = file.split(separator: "/").dropLast()
            while !parts.isEmpty {
                found.insert(parts.joined(separator: "/"))
                parts = parts.dropLast()
            }
        }
        return found
    }

    /// The names in `folder` (empty when it does not exist).
    static func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// The sha256 of a file, as lowercase hex, computed by Python's hashlib.
    static func sha256(_ python: String, _ path: String) async throws -> String {
        let result = try await ExternalTool.run(
            python, ["-c", "import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())", path])
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The proxy's log entries for bundle requests.
    static func bundleRequests(_ proxy: PythonService) throws -> [[String: Any]] {
        // The proxy logs a request once its answer is relayed, so it numbers them as they arrive: a short answer
        // whose upstream closes late would otherwise be logged after a later request.
        try proxy.log().filter { ($0["path"] as? String)?.hasPrefix("/v1/bundles/") == true }
            .sorted { ($0["seq"] as? Int ?? 0) < ($1["seq"] as? Int ?? 0) }
    }

    /// The proxy's log entries for bundle requests, once at least `count` are logged. The proxy logs a request
    /// when its upstream closes, after relaying the answer: a client can hold the whole answer, and its test read
    /// the log, before that entry is written.
    static func bundleRequests(_ proxy: PythonService, count: Int) async throws -> [[String: Any]] {
        try await eventually("the proxy to log \(count) bundle requests") { try bundleRequests(proxy).count >= count }
        return try bundleRequests(proxy)
    }

    /// The offset of a `Range: bytes=N-` field.
    static func rangeStart(_ entry: [String: Any]) -> Int? {
        guard let range = entry["range"] as? String, range.hasPrefix("bytes="), range.hasSuffix("-") else { return nil }
        return Int(range.dropFirst(6).dropLast())
    }
}
