@testable import DepotServerTestSupport
import DepotTestSupport
import DepotSettings
import DepotTelemetry
import DepotCore
import DepotHTTP
@testable import DepotOrigin
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import DepotServer

/// The single-part 206 written from a bundle's prepared fields is byte for byte the one written from DepotHTTP's
/// full plan, for every range form, HTTP version, keep-alive, request id and origin field.
@Suite("A single-range answer from prepared fields equals the planned one")
struct RangeAnswerTests {
    @Test func preparedAndPlannedAnswersAreTheSameBytes() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("depot-range-answer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 1_234_567
        let path = directory.appendingPathComponent("bundle.zip").path
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: path))
        let digest = String(repeating: "ab", count: 32)
        let version = ContentVersion(
            productId: "com.example.range", contentId: "com.example.range", version: "1", publishedAt: 1_700_000_000,
            digest: .parsed(digest), size: Int64(size), unpackedSize: Int64(size))
        let plain = ServedBundle(version: version, path: path)
        let asOrigin = plain.adding(OriginHeaders(settings: .defaults).bundleFields(for:))
        let files = OriginLoopState()
        let allocator = ByteBufferAllocator()
        var compared = 0
        for bundle in [plain, asOrigin] {
            for range in ["bytes=0-0", "bytes=0-65535", "bytes=65536-131071", "bytes=-1", "bytes=1234000-", "bytes=0-"] {
                let conditions = RequestConditions(method: .get, headers: [(name: "Range", value: range)])
                let single = try #require(
                    ConditionalEvaluator.singleRange(for: conditions, representation: bundle.representation), "\(range)")
                let plan = ConditionalEvaluator.plan(
                    for: conditions, representation: bundle.representation, now: 1_800_000_000, boundary: "unused")
                for (version, keepAlive, requestId) in [
                    (HTTPVersion.http1_1, true, String?.none), (.http1_1, false, "req-1"), (.http1_0, true, nil),
                ] {
                    let framing = AnswerFraming(
                        HTTPRequestHead(version: version, method: .GET, uri: "/v1/bundles/\(digest)"))
                    func written(_ answer: BundleAnswer) throws -> (String, Int, [String]) {
                        let (head, body, status) = BundleResponseWriter.render(
                            answer, request: framing, date: "Tue, 24 Nov 2026 03:00:00 GMT", second: 1_800_000_000,
                            keepAlive: keepAlive, requestId: requestId, loopState: files, allocator: allocator)
                        let parts = body.map { part -> String in
                            switch part {
                            case .bytes(let buffer): return "bytes \(buffer.readableBytes)"
                            case .file(_, let offset, let length): return "file \(offset) \(length)"
                            }
                        }
                        return (String(buffer: head), status, parts)
                    }
                    let prepared = try written(.range(single, bundle, requester: .edge))
                    let planned = try written(.bytes(plan, bundle, requester: .edge))
                    #expect(prepared.0 == planned.0 && prepared.1 == planned.1 && prepared.2 == planned.2, "\(range)")
                    #expect(prepared.1 == 206 && prepared.0.contains("Content-Range: bytes \(single.first)-\(single.last)/\(size)\r\n"))
                    compared += 1
                }
            }
        }
        #expect(compared == 36)
    }
}
