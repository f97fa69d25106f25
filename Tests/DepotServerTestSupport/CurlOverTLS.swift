import DepotTestSupport
import Foundation
import Testing

/// curl against a server that speaks TLS with `TestCertificates`, trusting only their authority.
struct CurlOverTLS {
    /// One answer: the status, the header fields of the final response (names lowercased) and the body.
    struct Answer {
        var status: Int
        var fields: [String: String]
        var body: [UInt8]
        /// curl's `-w` output.
        var written: String
    }

    let curl: String
    /// `https://127.0.0.1:PORT`.
    let base: String
    /// Where the test's files are, `authority.pem` among them.
    let scratch: ScratchDirectory

    /// curl for the server at `base`, or nil when curl is missing (a failure in CI).
    init?(base: String, scratch: ScratchDirectory, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let curl = ExternalTool.require("curl", sourceLocation: sourceLocation) else { return nil }
        self.curl = curl
        self.base = base
        self.scratch = scratch
    }

    /// curl for a live server started with `tls`, or nil when curl is missing (a failure in CI).
    init?(_ server: LiveServer, sourceLocation: SourceLocation = #_sourceLocation) {
        self.init(base: server.base, scratch: server.scratch, sourceLocation: sourceLocation)
    }

    /// The options every request takes: quiet but for errors, the test authority as the only trust.
    var trust: [String] { ["-sS", "--cacert", TestCertificates.authorityPath(in: scratch)] }

    /// Runs curl with `options` on `path` (under the server's base URL) and reads the answer back.
    func fetch(
        _ path: String, _ options: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws
        -> Answer
    {
        let name = UUID().uuidString.prefix(8)
        let headers = scratch.path + "/curl-\(name).head"
        let body = scratch.path + "/curl-\(name).body"
        defer {
            try? FileManager.default.removeItem(atPath: headers)
            try? FileManager.default.removeItem(atPath: body)
        }
        let result = try await ExternalTool.run(
            curl, trust + ["-D", headers, "-o", body, "-w", "%{http_code} %{size_download}"] + options + [base + path])
        try #require(result.status == 0, "curl \(path): \(result.error)", sourceLocation: sourceLocation)
        let head = (try? String(contentsOfFile: headers, encoding: .utf8)) ?? ""
        // The last response block: curl writes interim answers (100 Continue) before it.
        let block = head.components(separatedBy: "\r\n\r\n").last { !$0.isEmpty } ?? ""
        var fields: [String: String] = [:]
        for line in block.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let bytes = FileManager.default.contents(atPath: body).map(Array.init) ?? []
        return Answer(
            status: Int(result.output.prefix { $0 != " " }) ?? 0, fields: fields, body: bytes, written: result.output)
    }

    /// Posts `json` to `path`; returns the status and the decoded object.
    func post(
        _ path: String, json: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws
        -> (status: Int, object: [String: Any])
    {
        let answer = try await fetch(
            path, ["-H", "Content-Type: application/json", "--data-binary", json], sourceLocation: sourceLocation)
        let object = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any] ?? [:]
        return (answer.status, object)
    }

    /// The parts of a `multipart/byteranges` body: each part's `Content-Range` start and its bytes.
    static func byteRanges(_ body: [UInt8], contentType: String) throws -> [(start: Int, bytes: [UInt8])] {
        let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
        let delimiter = Array("--\(boundary)\r\n".utf8)
        var parts: [(Int, [UInt8])] = []
        var index = 0
        while let found = firstIndex(of: delimiter, in: body, from: index) {
            let headStart = found + delimiter.count
            let headEnd = try #require(firstIndex(of: Array("\r\n\r\n".utf8), in: body, from: headStart))
            let head = String(decoding: body[headStart..<headEnd], as: UTF8.self)
            let range = try #require(
                head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-range:") })
            // Content-Range: bytes FIRST-LAST/SIZE
            let numbers = range.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            try #require(numbers.count == 3, "\(range)")
            let start = headEnd + 4
            let end = start + numbers[1] - numbers[0] + 1
            try #require(end <= body.count)
            parts.append((numbers[0], Array(body[start..<end])))
            index = end
        }
        return parts
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index] == needle[0] && Array(haystack[index..<index + needle.count]) == needle { return index }
            index += 1
        }
        return nil
    }
}
