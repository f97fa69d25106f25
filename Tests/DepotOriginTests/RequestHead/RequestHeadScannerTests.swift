import DepotHTTP
@testable import DepotOrigin
import Testing

private let digest = String(repeating: "ab", count: 32)
private let bundle = "/v1/bundles/\(digest)"

/// What the scanner made of a head, reduced to text a table compares.
private func scan(_ text: String, limits: RequestHeadLimits = .defaults, edgeField: String? = nil) -> String {
    let scanner = RequestHeadScanner(limits: limits, edgeSecretField: edgeField.map { Array($0.utf8) })
    let bytes = Array(text.utf8)
    let outcome = bytes.withUnsafeBytes { scanner.scan($0) }
    switch outcome {
    case .needMore: return "need more"
    case .targetTooLong: return "414"
    case .headTooLarge: return "431"
    case .unframeable: return "decoder"
    case .head(let length, let body, let recognized):
        let framing: String
        switch body {
        case .none: framing = "no body"
        case .length(let count): framing = "body \(count)"
        case .unknown: framing = "body unknown"
        }
        guard let request = recognized else { return "head \(length) \(framing)" }
        var text = "bundle \(request.isHead ? "HEAD" : "GET") \(length)"
        if !request.keepAlive { text += " close" }
        if let token = request.bearerToken { text += " bearer=\(token)" }
        if let conditions = request.conditions {
            text += " range=\(conditions.range) ifRange=\(conditions.ifRange) ifNoneMatch=\(conditions.ifNoneMatch)"
        }
        if let range = request.plainRange { text += " plainRange=\(range.first)-\(range.last)" }
        if let query = request.target.query { text += " query=\(query)" }
        return text
    }
}

private func head(_ lines: [String]) -> String {
    lines.joined(separator: "\r\n") + "\r\n\r\n"
}

/// One head and what the scanner must make of it.
struct ScannerCase: CustomTestStringConvertible, Sendable {
    var name: String
    var text: String
    var expected: String
    var testDescription: String { name }
}

private func plain(_ extra: [String] = [], method: String = "GET", target: String = bundle) -> String {
    head(["\(method) \(target) HTTP/1.1", "Host: depot"] + extra)
}

@Suite("The request head scanner: what it answers from the bytes, what it leaves to NIO's decoder")
struct RequestHeadScannerTests {
    static let cases: [ScannerCase] = [
        ScannerCase(
            name: "a plain bundle GET", text: plain(["Authorization: Bearer g1"]),
            expected: "bundle GET \(plain(["Authorization: Bearer g1"]).utf8.count) bearer=g1"),
        ScannerCase(
            name: "a plain bundle HEAD", text: plain(method: "HEAD"),
            expected: "bundle HEAD \(plain(method: "HEAD").utf8.count)"),
        ScannerCase(
            name: "a range and If-Range are kept", text: plain(["range: bytes=0-3", "If-Range: \"x\""]),
            expected:
                "bundle GET \(plain(["range: bytes=0-3", "If-Range: \"x\""]).utf8.count) range=[\"bytes=0-3\"] ifRange=[\"\\\"x\\\"\"] ifNoneMatch=[]"
        ),
        ScannerCase(
            name: "one plain range is read as numbers", text: plain(["Range: bytes=10-4999"]),
            expected: "bundle GET \(plain(["Range: bytes=10-4999"]).utf8.count) plainRange=10-4999"),
        ScannerCase(
            name: "a reversed range is kept as text", text: plain(["Range: bytes=5-3"]),
            expected: "bundle GET \(plain(["Range: bytes=5-3"]).utf8.count) range=[\"bytes=5-3\"] ifRange=[] ifNoneMatch=[]"),
        ScannerCase(
            name: "an open range is kept as text", text: plain(["Range: bytes=5-"]),
            expected: "bundle GET \(plain(["Range: bytes=5-"]).utf8.count) range=[\"bytes=5-\"] ifRange=[] ifNoneMatch=[]"),
        ScannerCase(
            name: "a range on a HEAD is kept as text", text: plain(["Range: bytes=0-3"], method: "HEAD"),
            expected:
                "bundle HEAD \(plain(["Range: bytes=0-3"], method: "HEAD").utf8.count) range=[\"bytes=0-3\"] ifRange=[] ifNoneMatch=[]"
        ),
        ScannerCase(
            name: "Connection: close", text: plain(["Connection: Close"]),
            expected: "bundle GET \(plain(["Connection: Close"]).utf8.count) close"),
        ScannerCase(
            name: "a grant in the query", text: plain(target: bundle + "?grant=g%2B1"),
            expected: "bundle GET \(plain(target: bundle + "?grant=g%2B1").utf8.count) query=grant=g%2B1"),
        ScannerCase(
            name: "tabs and spaces around a value", text: plain(["Authorization:\t Bearer g1"]),
            expected: "bundle GET \(plain(["Authorization:\t Bearer g1"]).utf8.count) bearer=g1"),
        ScannerCase(
            name: "other fields are ignored", text: plain(["User-Agent: curl/8", "Accept: */*"]),
            expected: "bundle GET \(plain(["User-Agent: curl/8", "Accept: */*"]).utf8.count)"),
        // Heads that look almost like bundle requests: framed, but left to NIO's decoder.
        ScannerCase(name: "lowercase method", text: plain(method: "get"), expected: "head \(plain(method: "get").utf8.count) no body"),
        ScannerCase(name: "POST", text: plain(method: "POST"), expected: "head \(plain(method: "POST").utf8.count) no body"),
        ScannerCase(
            name: "HTTP/1.0", text: head(["GET \(bundle) HTTP/1.0", "Host: depot"]),
            expected: "head \(head(["GET \(bundle) HTTP/1.0", "Host: depot"]).utf8.count) no body"),
        ScannerCase(
            name: "a Content-Length body", text: plain(["Content-Length: 5"]),
            expected: "head \(plain(["Content-Length: 5"]).utf8.count) body 5"),
        ScannerCase(
            name: "Content-Length: 0", text: plain(["Content-Length: 0"]),
            expected: "head \(plain(["Content-Length: 0"]).utf8.count) no body"),
        ScannerCase(
            name: "Transfer-Encoding", text: plain(["Transfer-Encoding: chunked"]),
            expected: "head \(plain(["Transfer-Encoding: chunked"]).utf8.count) body unknown"),
        ScannerCase(
            name: "two Content-Length fields", text: plain(["Content-Length: 1", "Content-Length: 1"]),
            expected: "head \(plain(["Content-Length: 1", "Content-Length: 1"]).utf8.count) body unknown"),
        ScannerCase(
            name: "a broken Content-Length", text: plain(["Content-Length: 1x"]),
            expected: "head \(plain(["Content-Length: 1x"]).utf8.count) body unknown"),
        ScannerCase(
            name: "an upgrade", text: plain(["Upgrade: websocket"]),
            expected: "head \(plain(["Upgrade: websocket"]).utf8.count) body unknown"),
        ScannerCase(
            name: "duplicate Host", text: plain(["Host: other"]),
            expected: "head \(plain(["Host: other"]).utf8.count) no body"),
        ScannerCase(
            name: "no Host", text: head(["GET \(bundle) HTTP/1.1"]),
            expected: "head \(head(["GET \(bundle) HTTP/1.1"]).utf8.count) no body"),
        ScannerCase(
            name: "two Authorization fields", text: plain(["Authorization: a", "Authorization: b"]),
            expected: "head \(plain(["Authorization: a", "Authorization: b"]).utf8.count) no body"),
        ScannerCase(
            name: "Expect", text: plain(["Expect: 100-continue"]),
            expected: "head \(plain(["Expect: 100-continue"]).utf8.count) no body"),
        ScannerCase(
            name: "Connection with other tokens", text: plain(["Connection: keep-alive, Upgrade"]),
            expected: "head \(plain(["Connection: keep-alive, Upgrade"]).utf8.count) no body"),
        ScannerCase(
            name: "trailing whitespace in a value", text: plain(["Authorization: Bearer g1 "]),
            expected: "head \(plain(["Authorization: Bearer g1 "]).utf8.count) no body"),
        ScannerCase(
            name: "a value that is not ASCII", text: plain(["User-Agent: caf\u{E9}"]),
            expected: "head \(plain(["User-Agent: caf\u{E9}"]).utf8.count) no body"),
        ScannerCase(
            name: "an absolute-form target", text: plain(target: "http://depot\(bundle)"),
            expected: "head \(plain(target: "http://depot\(bundle)").utf8.count) no body"),
        ScannerCase(
            name: "a target with a fragment", text: plain(target: bundle + "#x"),
            expected: "head \(plain(target: bundle + "#x").utf8.count) no body"),
        ScannerCase(
            name: "a routed target", text: plain(target: "/v1/products"),
            expected: "head \(plain(target: "/v1/products").utf8.count) no body"),
        ScannerCase(
            name: "the grant check", text: plain(target: "/v1/grants/check"),
            expected: "head \(plain(target: "/v1/grants/check").utf8.count) no body"),
        // Heads not in strict form: the decoder judges them, and the rest of the connection.
        ScannerCase(name: "obs-fold", text: plain(["X-A: 1", " folded"]), expected: "decoder"),
        ScannerCase(name: "whitespace before a colon", text: plain(["Host : x"]), expected: "decoder"),
        ScannerCase(name: "a bare LF", text: "GET \(bundle) HTTP/1.1\nHost: depot\n\n", expected: "decoder"),
        ScannerCase(name: "a bare LF inside the fields", text: "GET \(bundle) HTTP/1.1\r\nHost: depot\n\r\n", expected: "decoder"),
        ScannerCase(name: "double space in the request line", text: head(["GET  \(bundle) HTTP/1.1", "Host: d"]), expected: "decoder"),
        ScannerCase(name: "HTTP/2.0", text: head(["GET \(bundle) HTTP/2.0", "Host: d"]), expected: "decoder"),
        ScannerCase(name: "HTTP/0.9", text: "GET \(bundle)\r\n", expected: "decoder"),
        ScannerCase(name: "a control byte in a value", text: plain(["X-A: a\u{1}b"]), expected: "decoder"),
        ScannerCase(name: "a field without a colon", text: plain(["nonsense"]), expected: "decoder"),
        // Limits.
        ScannerCase(
            name: "a target of 8 KiB", text: plain(target: "/" + String(repeating: "a", count: 8191)),
            expected: "head \(plain(target: "/" + String(repeating: "a", count: 8191)).utf8.count) no body"),
        ScannerCase(
            name: "a target of 8 KiB and a byte", text: plain(target: "/" + String(repeating: "a", count: 8192)),
            expected: "414"),
        ScannerCase(
            name: "a target over the limit, before its end arrived", text: "GET /" + String(repeating: "a", count: 9000),
            expected: "414"),
        ScannerCase(
            name: "a head over 16 KiB", text: plain(["X-Big: " + String(repeating: "b", count: 16_400)]),
            expected: "431"),
        ScannerCase(
            name: "a head over 16 KiB, before its end arrived", text: "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "b", count: 16_400),
            expected: "431"),
        ScannerCase(name: "101 field lines", text: plain((1...100).map { "X-\($0): v" }), expected: "431"),
        ScannerCase(
            name: "100 field lines", text: plain((1...99).map { "X-\($0): v" }),
            expected: "bundle GET \(plain((1...99).map { "X-\($0): v" }).utf8.count)"),
    ]

    @Test(arguments: cases)
    func scans(_ row: ScannerCase) {
        #expect(scan(row.text) == row.expected)
    }

    @Test func everyProperPrefixOfAHeadNeedsMore() {
        let text = plain(["Authorization: Bearer g1", "Range: bytes=0-3", "Connection: keep-alive"])
        let bytes = Array(text.utf8)
        for end in 0..<bytes.count {
            #expect(scan(String(decoding: bytes[..<end], as: UTF8.self)) == "need more", "prefix of \(end) bytes")
        }
        #expect(scan(text).hasPrefix("bundle GET \(bytes.count)"))
    }

    @Test func bytesAfterTheHeadAreNotPartOfIt() {
        let first = plain(["Authorization: Bearer g1"])
        #expect(scan(first + "GET /next HTTP/1.1\r\n") == "bundle GET \(first.utf8.count) bearer=g1")
    }

    @Test func theEdgeSecretFieldSendsTheRequestToTheDecoder() {
        let text = plain(["X-Depot-Edge-Secret: s"])
        #expect(scan(text, edgeField: "x-depot-edge-secret") == "head \(text.utf8.count) no body")
        #expect(scan(text) == "bundle GET \(text.utf8.count)")
    }

    @Test func byteClassesAreRFC9110TokensAndRFC3986TargetBytes() {
        let token = Set("!#$%&'*+-.^_`|~abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        let target = Set("-._~!$&'()*+,;=:@/?%abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(RequestHeadScanner.isTokenByte(byte) == token.contains(byte), "byte \(byte)")
            #expect(RequestHeadScanner.isPlainTargetByte(byte) == target.contains(byte), "byte \(byte)")
        }
    }

    /// Field values are read eight bytes at a time while every byte is visible ASCII or SP: one byte of each other class,
    /// at every place in a long value, is still seen.
    @Test func anOddByteAnywhereInALongValueIsSeen() {
        let filler = Array("abcdefghijklmnopqrstuvwxyz0123456789 ~!".utf8)
        for position in 0..<filler.count - 1 {
            for (byte, expectation) in [
                (UInt8(0x09), "bundle"), (0x00, "decoder"), (0x01, "decoder"), (0x0B, "decoder"), (0x1F, "decoder"),
                (0x7F, "decoder"), (0x80, "head"), (0xC3, "head"), (0xFF, "head"),
            ] {
                var value = filler
                value[position] = byte
                let prefix = Array("GET \(bundle) HTTP/1.1\r\nHost: depot\r\nX-Pad: ".utf8)
                let bytes = prefix + value + Array("\r\n\r\n".utf8)
                let scanner = RequestHeadScanner(limits: .defaults, edgeSecretField: nil)
                let outcome = bytes.withUnsafeBytes { scanner.scan($0) }
                let seen: String
                switch outcome {
                case .head(let length, _, let request):
                    #expect(length == bytes.count)
                    seen = request == nil ? "head" : "bundle"
                case .unframeable: seen = "decoder"
                default: seen = "\(outcome)"
                }
                #expect(seen == expectation, "byte \(byte) at \(position)")
            }
        }
    }

    /// A target of the prefix and 64 lowercase hex digits is read as a digest where it lies; any other target the
    /// way a decoded one is: both name the same bundle and query.
    @Test(
        arguments: [
            (bundle, digest, nil), (bundle + "?grant=g", digest, "grant=g"), (bundle + "?", digest, ""),
            ("/v1/bundles/" + digest.uppercased(), digest.uppercased(), nil),
            ("/v1/bundles/" + digest.dropLast(), String(digest.dropLast()), nil),
            ("/v1/bundles/" + digest + "0", digest + "0", nil), ("/v1/bundles/" + digest + "/x", digest + "/x", nil),
        ] as [(String, String, String?)])
    func targetsSplitAsDecodedOnes(target: String, segment: String, query: String?) throws {
        let scanner = RequestHeadScanner(limits: .defaults, edgeSecretField: nil)
        let bytes = Array(plain(target: target).utf8)
        guard case .head(_, _, let recognized?) = bytes.withUnsafeBytes({ scanner.scan($0) }) else {
            Issue.record("not recognized: \(target)")
            return
        }
        let decoded = try #require(BundleRequestTarget(uri: target))
        #expect(recognized.target.digest == Substring(segment))
        #expect(recognized.target.query == query.map { Substring($0) })
        #expect(recognized.target.bundleDigest == decoded.bundleDigest)
        #expect(recognized.target.query == decoded.query)
        #expect((recognized.target.bundleDigest != nil) == (segment == digest))
    }

    /// The token the connection sent last is reused only when the bytes are the same.
    @Test(arguments: [
        ("grant-1", "grant-1"), ("grant-1", "grant-2"), ("grant-1", "grant-12"), ("grant-12", "grant-1"), ("", "g"),
    ])
    func aPreviousTokenIsReusedOnlyForTheSameBytes(previous: String, sent: String) {
        let scanner = RequestHeadScanner(limits: .defaults, edgeSecretField: nil)
        let bytes = Array(plain(["Authorization: Bearer \(sent)"]).utf8)
        guard case .head(_, _, let recognized?) = bytes.withUnsafeBytes({ scanner.scan($0, previousToken: previous) })
        else {
            Issue.record("not recognized")
            return
        }
        #expect(recognized.bearerToken == sent)
    }

    @Test func limitsComeFromTheConfiguration() {
        let limits = RequestHeadLimits(maxTargetBytes: 100, maxHeadBytes: 1024, maxFields: 8)
        #expect(scan(plain(target: "/" + String(repeating: "a", count: 100)), limits: limits) == "414")
        #expect(scan(plain((1...8).map { "X-\($0): v" }), limits: limits) == "431")
        #expect(scan(plain(["X-Big: " + String(repeating: "b", count: 1000)]), limits: limits) == "431")
        #expect(scan(plain((1...7).map { "X-\($0): v" }), limits: limits).hasPrefix("bundle GET"))
    }
}
