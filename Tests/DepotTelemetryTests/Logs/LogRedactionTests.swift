@testable import DepotOrigin
import DepotTelemetry
import Logging
import Testing

/// Secrets never reach a log line: every kind Depot hands out or accepts, wherever it sits in a message or
/// in metadata, and nothing else is touched.
@Suite("Log redaction")
struct LogRedactionTests {
    static let jws = "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCIl19.eyJ0cmFuc2FjdGlvbklkIjoiMTAwMCJ9.c2lnbmF0dXJl"
    static let grant = "g1.test.1790000000.AbC-dEf_123.MaCmAcMaC"
    static let finishToken = "f1.test.bWFjLW9mLXRoZS10cmFuc2FjdGlvbg"
    static let publisherKey = "dpk_" + String(repeating: "Ab9-_", count: 8) + "xyz"

    @Test(arguments: [
        ("redeem failed for \(jws)", "redeem failed for [redacted jws]"),
        ("GET /v1/bundles/abc?grant=\(grant)", "GET /v1/bundles/abc?grant=[redacted grant]"),
        ("token \"\(finishToken)\" refused", "token \"[redacted finish token]\" refused"),
        ("key=\(publisherKey), scope=all", "key=[redacted publisher key], scope=all"),
        ("Authorization: Bearer s3cr3t-admin", "Authorization: Bearer [redacted token]"),
        ("authorization: bearer   another", "authorization: bearer   [redacted token]"),
        ("path /x/\(grant)/\(jws)", "path /x/[redacted grant]/[redacted jws]"),
        ("listening address=http://127.0.0.1:8080", "listening address=http://127.0.0.1:8080"),
        (
            "bundle digest 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "bundle digest 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
        ),
        ("version g1.0 of f1.2", "version g1.0 of f1.2"),
        // Prose is not told from a header: the word after "bearer" goes too.
        ("the bearer of news", "the bearer [redacted token] news"),
    ])
    func messages(text: String, expected: String) {
        #expect(LogRedaction.redact(text) == expected)
    }

    @Test func metadataIsRedactedByKeyAndByShapeAtEveryDepth() {
        let metadata: Logger.Metadata = [
            "finishToken": "anything at all",
            "Authorization": "Bearer x",
            "signedTransaction": "short",
            "path": "/v1/admin/transactions/\(Self.jws)",
            "nested": ["inner": "\(Self.grant)", "list": ["\(Self.publisherKey)", "plain"]],
            "count": "3",
        ]
        let redacted = LogRedaction.redact(metadata)
        #expect(redacted["finishToken"] == "[redacted]")
        #expect(redacted["Authorization"] == "[redacted]")
        #expect(redacted["signedTransaction"] == "[redacted]")
        #expect(redacted["path"] == "/v1/admin/transactions/[redacted jws]")
        #expect(redacted["nested"] == ["inner": "[redacted grant]", "list": ["[redacted publisher key]", "plain"]])
        #expect(redacted["count"] == "3")
    }

    @Test func theHandlerRedactsMessagesMetadataAndErrorsBeforeWriting() throws {
        let lines = LineCollector()
        var logger = Logger(label: "depot-test") { label in
            RedactingLogHandler(JSONLogHandler(label: label, write: { lines.append($0) }))
        }
        logger.logLevel = .trace
        logger[metadataKey: "hb.request.id"] = "\(Self.grant)"
        struct Failure: Error, CustomStringConvertible { var description: String }
        logger.error(
            "refused \(Self.jws)", error: Failure(description: "bad token \(Self.finishToken)"),
            metadata: ["key": "\(Self.publisherKey)"])
        let text = lines.text
        #expect(!text.isEmpty)
        for secret in [Self.jws, Self.grant, Self.publisherKey, Self.finishToken] {
            #expect(!text.contains(secret), "\(secret) in \(text)")
        }
        #expect(text.contains("[redacted jws]") && text.contains("[redacted grant]"))
        #expect(text.contains("[redacted publisher key]") && text.contains("[redacted finish token]"))
    }

    /// A line logged while a request is served carries its id (`RequestId.current`, through the provider the
    /// process's logging is set up with), redacted like any metadata; outside a request it carries none.
    @Test func linesLoggedWhileARequestIsServedCarryItsIdRedacted() throws {
        let lines = LineCollector()
        var logger = Logger(label: "depot-test") { label in
            RedactingLogHandler(JSONLogHandler(label: label, write: { lines.append($0) }), metadataProvider: .requestId)
        }
        logger.logLevel = .trace
        RequestId.$current.withValue("trace-7") { logger.info("served") }
        RequestId.$current.withValue(Self.grant) { logger.info("served") }
        logger.info("idle")
        let written = lines.text.split(separator: "\n").map(String.init)
        #expect(written.count == 3)
        #expect(written[0].contains("\"hb.request.id\":\"trace-7\""), "\(written[0])")
        #expect(written[1].contains("\"hb.request.id\":\"[redacted grant]\"") && !written[1].contains(Self.grant), "\(written[1])")
        #expect(!written[2].contains("hb.request.id"), "\(written[2])")
    }
}
