@testable import DepotServerTestSupport
import DepotTelemetry
import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import DepotServer

/// A request's text.
private func request(_ method: String, _ target: String, _ fields: [String] = [], version: String = "HTTP/1.1") -> String {
    var text = "\(method) \(target) \(version)\r\nHost: 127.0.0.1\r\n"
    for field in fields { text += field + "\r\n" }
    return text + "\r\n"
}

/// A routed request with an (empty) chunked body: the recognizer cannot frame what follows it, so every later
/// request on the connection is read by NIO's decoder alone, as before the recognizer existed.
private let decoderOnlyPrimer = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"

/// What the pipeline answered: each answer's status, fields (without Date) and body, and whether the connection
/// stayed open.
private struct Answers: Equatable {
    var answers: [String]
    var bodies: [[UInt8]]
    var open: Bool
}

private func answers(
    to text: (EmbeddedBundleConnection) -> String, heads: [Bool], decoderOnly: Bool, bundleSize: Int = 1000
) throws -> Answers {
    // The same bundle on both sides of a comparison.
    let connection = try EmbeddedBundleConnection(bundleBytes: (0..<bundleSize).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    if decoderOnly {
        try connection.send(decoderOnlyPrimer)
        connection.settle()
        let primer = try splitResponses(try connection.written(), heads: [false])
        #expect(primer.map(\.text) == ["routed GET /healthz"])
    }
    _ = try? connection.send(text(connection))
    connection.settle()
    let responses = try splitResponses(try connection.written(), heads: heads)
    let described = responses.map { response in
        let fields = response.headers.filter { $0.name.lowercased() != "date" }.map { field in
            // A request id made up for an error answer differs from run to run; where it appears is compared.
            "\(field.name): " + (field.name.lowercased() == "x-request-id" && isGeneratedId(field.value) ? "(generated)" : field.value)
        }
        return "\(response.status) \(fields.joined(separator: "; "))"
    }
    let bodies = responses.map { response -> [UInt8] in
        let text = String(decoding: response.body, as: UTF8.self)
        guard let id = response.value("X-Request-Id"), isGeneratedId(id), text.contains("\"requestId\":\"\(id)\"") else {
            return response.body
        }
        return Array(text.replacingOccurrences(of: id, with: "(generated)").utf8)
    }
    return Answers(answers: described, bodies: bodies, open: connection.channel.isActive)
}

/// 32 lowercase hex digits, as ``RequestId/generate()`` makes them.
private func isGeneratedId(_ value: String) -> Bool {
    value.utf8.count == 32 && value.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
}

/// One stream of requests, answered alike by the recognizer and by NIO's decoder.
struct RecognizerCase: CustomTestStringConvertible, Sendable {
    var name: String
    var heads: [Bool]
    var text: @Sendable (_ digest: String, _ grant: String) -> String
    var testDescription: String { name }
}

@Suite("The request recognizer in front of NIO's decoder: plain bundle requests from the bytes, every other one unchanged")
struct RequestRecognizerTests {
    static let sameAnswers: [RecognizerCase] = [
        RecognizerCase(name: "a bundle GET", heads: [false]) { digest, grant in
            request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)"])
        },
        RecognizerCase(name: "a bundle HEAD", heads: [true]) { digest, grant in
            request("HEAD", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)"])
        },
        RecognizerCase(name: "a range, a suffix range, two ranges", heads: [false, false, false]) { digest, grant in
            request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Range: bytes=2-5"])
                + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Range: bytes=-10"])
                + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Range: bytes=0-1,5-9"])
        },
        RecognizerCase(name: "If-None-Match, If-Range, an unsatisfiable range", heads: [false, false, false]) { digest, grant in
            request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "If-None-Match: \"\(digest)\""])
                + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Range: bytes=0-3", "If-Range: \"x\""])
                + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Range: bytes=5000-"])
        },
        // `Range: bytes=a-b` alone is read from the bytes: at the edges of the bundle and of the form it must answer alike.
        RecognizerCase(
            name: "one plain range: first byte, past the end, wholly past the end, reversed, leading zeros",
            heads: [false, false, false, false, false]
        ) { digest, grant in
            ["bytes=0-0", "bytes=10-4999", "bytes=5000-5010", "bytes=5-3", "bytes=007-09"].map {
                request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Range: \($0)"])
            }.joined()
        },
        RecognizerCase(
            name: "near-plain ranges: an uppercase unit, 20 digits, a HEAD, a space", heads: [false, false, true, false]
        ) { digest, grant in
            request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Range: Bytes=0-3"])
                + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Range: bytes=0-99999999999999999999"])
                + request("HEAD", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Range: bytes=0-3"])
                + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Range: bytes=0 -3"])
        },
        RecognizerCase(name: "the grant in the query, none, a forged one, a bad digest", heads: [false, false, false, false]) {
            digest, grant in
            request("GET", "/v1/bundles/\(digest)?grant=\(grant)") + request("GET", "/v1/bundles/\(digest)")
                + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer x\(grant)"])
                + request("GET", "/v1/bundles/ABC", ["Authorization: Bearer \(grant)"])
        },
        RecognizerCase(name: "Connection: close ends the connection after its answer", heads: [false]) { digest, grant in
            request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Connection: close"])
                + request("GET", "/healthz")
        },
        RecognizerCase(name: "bundle and routed requests pipelined", heads: [false, false, true, false]) { digest, grant in
            request("GET", "/v1/products") + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)"])
                + request("HEAD", "/healthz") + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)"])
        },
        // Heads that look almost like bundle requests: NIO's decoder reads them, with or without the recognizer.
        RecognizerCase(name: "a lowercase method", heads: [false]) { digest, grant in
            request("get", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)"])
        },
        RecognizerCase(name: "HTTP/1.0, with and without keep-alive", heads: [false, false]) { digest, grant in
            request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Connection: keep-alive"], version: "HTTP/1.0")
                + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)"], version: "HTTP/1.0")
        },
        RecognizerCase(name: "a chunked body on a bundle GET", heads: [false, false]) { digest, grant in
            "GET /v1/bundles/\(digest) HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer \(grant)\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3\r\nabc\r\n0\r\n\r\n" + request("GET", "/healthz")
        },
        RecognizerCase(name: "a Content-Length body on a bundle GET, then a routed request", heads: [false, false]) { digest, grant in
            request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Content-Length: 19"])
                + "GET /x HTTP/1.1\r\n\r\n" + request("GET", "/healthz")
        },
        RecognizerCase(name: "odd whitespace: tabs, and a space before a colon", heads: [false, false]) { digest, grant in
            request("GET", "/v1/bundles/\(digest)", ["Authorization:\t\tBearer \(grant)\t"])
                + request("GET", "/v1/bundles/\(digest)", ["Authorization : Bearer \(grant)"])
        },
        RecognizerCase(name: "obs-fold", heads: [false]) { digest, grant in
            request("GET", "/v1/bundles/\(digest)", ["X-A: 1", " 2", "Authorization: Bearer \(grant)"])
        },
        RecognizerCase(name: "duplicate Host, no Host", heads: [false, false]) { digest, grant in
            request("GET", "/v1/bundles/\(digest)", ["Host: other", "Authorization: Bearer \(grant)"])
                + "GET /v1/bundles/\(digest) HTTP/1.1\r\nAuthorization: Bearer \(grant)\r\n\r\n"
        },
        RecognizerCase(name: "two Authorization fields, Expect, an absolute-form target", heads: [false, false, false]) { digest, grant in
            request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Authorization: Bearer \(grant)"])
                + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Expect: 100-continue"])
                + request("GET", "http://depot.example/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)"])
        },
        RecognizerCase(name: "a POST to a bundle", heads: [false]) { digest, grant in
            request("POST", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)", "Content-Length: 2"]) + "{}"
        },
        RecognizerCase(name: "empty lines before a request line", heads: [false]) { digest, grant in
            "\r\n\r\n" + request("GET", "/v1/bundles/\(digest)", ["Authorization: Bearer \(grant)"])
        },
        RecognizerCase(name: "a bare LF", heads: [false]) { digest, grant in
            "GET /v1/bundles/\(digest) HTTP/1.1\nHost: h\nAuthorization: Bearer \(grant)\n\n"
        },
    ]

    /// The same bytes get the same answers whether the recognizer reads them or NIO's decoder does.
    @Test(arguments: sameAnswers)
    func answersAsNIOsDecoderDoes(_ row: RecognizerCase) throws {
        let text: (EmbeddedBundleConnection) -> String = { row.text($0.digest, $0.grant) }
        let recognized = try answers(to: text, heads: row.heads, decoderOnly: false)
        let decoded = try answers(to: text, heads: row.heads, decoderOnly: true)
        #expect(recognized == decoded)
        #expect(recognized.answers.count == row.heads.count)
    }

    @Test func aHeadSplitAtEveryByteIsAnsweredAlike() throws {
        let probe = try EmbeddedBundleConnection()
        let grant = probe.grant
        let text =
            request("GET", "/v1/bundles/\(probe.digest)", ["Authorization: Bearer \(grant)", "Range: bytes=2-5"])
            + request("GET", "/healthz") + request("HEAD", "/v1/bundles/\(probe.digest)?grant=\(grant)")
        let bytes = Array(text.utf8)
        for split in 0...bytes.count {
            let connection = try EmbeddedBundleConnection()
            // The same bundle bytes and key in every connection are not given: take this connection's own.
            let own = text.replacingOccurrences(of: probe.digest, with: connection.digest)
                .replacingOccurrences(of: grant, with: connection.grant)
            let ownBytes = Array(own.utf8)
            let cut = min(split, ownBytes.count)
            try connection.channel.writeInbound(connection.channel.allocator.buffer(bytes: ownBytes[..<cut]))
            try connection.channel.writeInbound(connection.channel.allocator.buffer(bytes: ownBytes[cut...]))
            connection.settle()
            let answers = try splitResponses(try connection.written(), heads: [false, false, true])
            #expect(answers.map(\.status) == [206, 200, 200], "split at \(split)")
            #expect(answers[0].body == Array(connection.bundleBytes[2...5]), "split at \(split)")
            #expect(answers[1].text == "routed GET /healthz", "split at \(split)")
            #expect(connection.channel.isActive)
        }
    }

    @Test func aPipelinedRequestBeforeAnOverlongTargetIsAnswered() throws {
        let connection = try EmbeddedBundleConnection()
        connection.router.holding = true
        try connection.send(
            request("GET", "/v1/bundles/\(connection.digest)", ["Authorization: Bearer \(connection.grant)"])
                + request("GET", "/healthz") + request("GET", "/" + String(repeating: "a", count: 20_000))
                + request("GET", "/v1/bundles/\(connection.digest)", ["Authorization: Bearer \(connection.grant)"]))
        // The 414 waits for the routed answer before it, which the router holds.
        let first = try splitResponses(try connection.written(), heads: [false])
        #expect(first[0].status == 200 && first[0].body == connection.bundleBytes)
        #expect(connection.channel.isActive)
        connection.settle()
        let rest = try splitResponses(try connection.written(), heads: [false, false])
        #expect(rest[0].text == "routed GET /healthz")
        #expect(rest[1].status == 414)
        #expect(rest[1].text.contains("\"code\":\"uri-too-long\""))
        #expect(rest[1].value("Connection") == "close")
        #expect(!connection.channel.isActive)
    }

    @Test func aHeaderSectionOverTheLimitIsAnswered431AndClosed() throws {
        let connection = try EmbeddedBundleConnection()
        let big = (0..<700).map { "X-Filler-\($0): " + String(repeating: "v", count: 90) }
        try connection.send(request("GET", "/healthz") + request("GET", "/healthz", big))
        connection.settle()
        let answers = try splitResponses(try connection.written(), heads: [false, false])
        #expect(answers[0].text == "routed GET /healthz")
        #expect(answers[1].status == 431)
        #expect(answers[1].text.contains("\"code\":\"header-fields-too-large\""))
        #expect(!connection.channel.isActive)
    }

    @Test func tooManyFieldsAreAnswered431() throws {
        let connection = try EmbeddedBundleConnection()
        try connection.send(request("GET", "/v1/bundles/\(connection.digest)", (0..<100).map { "X-\($0): v" }))
        connection.settle()
        let answers = try splitResponses(try connection.written(), heads: [false])
        #expect(answers[0].status == 431)
        #expect(!connection.channel.isActive)
    }

    @Test func anOverlongTargetTrickledInIsRefusedBeforeItEnds() throws {
        let connection = try EmbeddedBundleConnection()
        try connection.send("GET /" + String(repeating: "a", count: 5000))
        #expect(try connection.written().isEmpty)
        try connection.send(String(repeating: "a", count: 5000))
        let answers = try splitResponses(try connection.written(), heads: [false])
        #expect(answers[0].status == 414)
        #expect(!connection.channel.isActive)
    }

    @Test func pastARequestItCannotFrameTheDecoderStillRefusesAHugeHead() throws {
        let connection = try EmbeddedBundleConnection()
        let big = (0..<700).map { "X-Filler-\($0): " + String(repeating: "v", count: 90) }
        _ = try? connection.send(decoderOnlyPrimer + request("GET", "/healthz", big))
        connection.settle()
        let answers = try splitResponses(try connection.written(), heads: [false, false])
        #expect(answers[0].text == "routed GET /healthz")
        #expect(answers[1].status == 400)
        #expect(!connection.channel.isActive)
    }
}
