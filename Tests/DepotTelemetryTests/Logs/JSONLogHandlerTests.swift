import DepotTelemetry
import Foundation
import Logging
import Synchronization
import Testing

/// Collects the lines a handler writes.
final class LineCollector: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
    var text: String { all.joined() }
}

/// `log.format: json`: one JSON object per line with time, level, label, message and metadata.
@Suite("JSON log lines")
struct JSONLogHandlerTests {
    @Test func eachEventIsOneJSONObjectOnOneLine() throws {
        let lines = LineCollector()
        var logger = Logger(label: "depot") { JSONLogHandler(label: $0, write: { lines.append($0) }) }
        logger.logLevel = .debug
        logger[metadataKey: "hb.request.id"] = "abc123"
        logger.debug("not shown")
        logger.info(
            "a \"quoted\"\nmessage", metadata: ["count": "3", "nested": ["list": ["a", "b"], "flag": "true"]])
        logger.trace("below the level")
        let written = lines.all
        #expect(written.count == 2)
        for line in written {
            #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil)
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written[1].utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["time", "level", "label", "message", "metadata"])
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "depot")
        #expect(object["message"] as? String == "a \"quoted\"\nmessage")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["hb.request.id"] as? String == "abc123")
        #expect(metadata["count"] as? String == "3")
        let nested = try #require(metadata["nested"] as? [String: Any])
        #expect(nested["list"] as? [String] == ["a", "b"])
        let time = try #require(object["time"] as? String)
        let parsed = try Date(time, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        #expect(abs(parsed.timeIntervalSinceNow) < 3600)
    }
}
