import DepotHTTP
import Testing

@Suite("Range and If-Range (RFC 9110 §13.1.5, §14.2)")
struct RangeRequestTests {
    static func single(_ offset: Int64, _ length: Int64) -> ResponseBody { .file(offset: offset, length: length) }
    static let whole = ResponseBody.file(offset: 0, length: 100)
    static let sixteen = (0..<16).map { "\($0 * 6)-\($0 * 6 + 1)" }.joined(separator: ",")
    static let seventeen = sixteen + ",98-98"

    static let cases: [PlanCase] = [
        PlanCase(
            name: "bytes=0-0 is the first byte", headers: [field("Range", "bytes=0-0")], status: 206, body: single(0, 1)
        ),
        PlanCase(
            name: "last byte past the end is clipped", headers: [field("Range", "bytes=50-499")], status: 206,
            body: single(50, 50)),
        PlanCase(name: "bytes=-0: 416", headers: [field("Range", "bytes=-0")], status: 416, body: ResponseBody.none),
        PlanCase(name: "first byte equal to size: 416", headers: [field("Range", "bytes=100-")], status: 416),
        PlanCase(name: "int-range starting at size: 416", headers: [field("Range", "bytes=100-200")], status: 416),
        PlanCase(name: "empty representation: 416", headers: [field("Range", "bytes=0-0")], size: 0, status: 416),
        PlanCase(
            name: "empty representation, suffix: 416", headers: [field("Range", "bytes=-1")], size: 0, status: 416),
        PlanCase(name: "empty representation, no Range: 200", headers: [], size: 0, status: 200, body: single(0, 0)),
        PlanCase(name: "unit case: Bytes=0-1", headers: [field("Range", "Bytes=0-1")], status: 206, body: single(0, 2)),
        PlanCase(
            name: "OWS around the value", headers: [field("Range", " bytes=0-1 ")], status: 206, body: single(0, 2)),
        PlanCase(name: "OWS around commas: multipart", headers: [field("Range", "bytes=0-1 , 4-5")], status: 206),
        PlanCase(
            name: "range name case-insensitive", headers: [field("RANGE", "bytes=0-1")], status: 206, body: single(0, 2)
        ),
        PlanCase(
            name: "two Range lines: ignored", headers: [field("Range", "bytes=0-1"), field("Range", "bytes=2-3")],
            status: 200, body: whole),
        PlanCase(name: "last < first: ignored", headers: [field("Range", "bytes=5-1")], status: 200, body: whole),
        PlanCase(name: "unknown unit: ignored", headers: [field("Range", "items=0-1")], status: 200, body: whole),
        PlanCase(name: "empty range set: ignored", headers: [field("Range", "bytes=")], status: 200, body: whole),
        PlanCase(name: "sign in a number: ignored", headers: [field("Range", "bytes=+1-2")], status: 200, body: whole),
        PlanCase(
            name: "space inside a number: ignored", headers: [field("Range", "bytes=1 0-20")], status: 200, body: whole),
        PlanCase(
            name: "huge last-pos means to the end", headers: [field("Range", "bytes=0-99999999999999999999999")],
            status: 206, body: single(0, 100)),
        PlanCase(name: "huge first-pos: 416", headers: [field("Range", "bytes=99999999999999999999-")], status: 416),
        PlanCase(name: "suffix", headers: [field("Range", "bytes=-10")], status: 206, body: single(90, 10)),
        PlanCase(
            name: "suffix longer than size: all of it", headers: [field("Range", "bytes=-1000")], status: 206,
            body: single(0, 100)),
        PlanCase(name: "open range", headers: [field("Range", "bytes=10-")], status: 206, body: single(10, 90)),
        PlanCase(
            name: "whole representation as one range is still 206", headers: [field("Range", "bytes=0-")], status: 206,
            body: single(0, 100)),
        PlanCase(
            name: "overlapping ranges coalesced", headers: [field("Range", "bytes=0-10,5-20")], status: 206,
            body: single(0, 21)),
        PlanCase(
            name: "adjacent ranges coalesced", headers: [field("Range", "bytes=10-19,0-9")], status: 206,
            body: single(0, 20)),
        PlanCase(
            name: "unsatisfiable specs dropped", headers: [field("Range", "bytes=200-300,0-0")], status: 206,
            body: single(0, 1)),
        PlanCase(name: "16 ranges: multipart", headers: [field("Range", "bytes=" + sixteen)], status: 206),
        PlanCase(
            name: "too many ranges: 200", headers: [field("Range", "bytes=" + seventeen)], status: 200, body: whole),
        PlanCase(
            name: "ranges summing past the size: 200", headers: [field("Range", "bytes=0-,0-")], status: 200,
            body: whole),
        PlanCase(
            name: "overlap summing past the size: 200", headers: [field("Range", "bytes=0-60,40-99")], status: 200,
            body: whole),
        PlanCase(
            name: "HEAD ignores Range", method: .head, headers: [field("Range", "bytes=0-0")], status: 200, body: whole),
        PlanCase(
            name: "other methods ignore Range", method: .other, headers: [field("Range", "bytes=0-0")], status: 200),
        PlanCase(
            name: "HEAD ignores an unsatisfiable Range", method: .head, headers: [field("Range", "bytes=500-")],
            status: 200),
        // If-Range, §13.1.5
        PlanCase(
            name: "If-Range current strong tag: 206",
            headers: [field("If-Range", "\"abc123\""), field("Range", "bytes=0-0")],
            status: 206, body: single(0, 1)),
        PlanCase(
            name: "If-Range other tag: 200", headers: [field("If-Range", "\"other\""), field("Range", "bytes=0-0")],
            status: 200,
            body: whole),
        PlanCase(
            name: "If-Range weak tag: 200", headers: [field("If-Range", "W/\"abc123\""), field("Range", "bytes=0-0")],
            status: 200,
            body: whole),
        PlanCase(
            name: "If-Range date equal to a strong Last-Modified: 206",
            headers: [field("If-Range", exampleIMF), field("Range", "bytes=0-0")], status: 206, body: single(0, 1)),
        PlanCase(
            name: "If-Range date differs: 200",
            headers: [field("If-Range", HTTPDate.format(exampleDate + 1)), field("Range", "bytes=0-0")], status: 200,
            body: whole),
        PlanCase(
            name: "If-Range date when Last-Modified is weak (same second as now): 200",
            headers: [field("If-Range", exampleIMF), field("Range", "bytes=0-0")], now: exampleDate, status: 200,
            body: whole),
        PlanCase(
            name: "If-Range date with Last-Modified one second old: 206",
            headers: [field("If-Range", exampleIMF), field("Range", "bytes=0-0")], now: exampleDate + 1, status: 206),
        PlanCase(
            name: "If-Range unparseable: 200", headers: [field("If-Range", "yesterday"), field("Range", "bytes=0-0")],
            status: 200,
            body: whole),
        PlanCase(
            name: "If-Range twice: 200",
            headers: [field("If-Range", "\"abc123\""), field("If-Range", "\"abc123\""), field("Range", "bytes=0-0")],
            status: 200),
        PlanCase(
            name: "If-Range without Range: 200", headers: [field("If-Range", "\"abc123\"")], status: 200, body: whole),
        PlanCase(
            name: "If-Range with a malformed Range: 200",
            headers: [field("If-Range", "\"abc123\""), field("Range", "bytes=x")],
            status: 200),
        PlanCase(
            name: "If-Range true, Range unsatisfiable: 416",
            headers: [field("If-Range", "\"abc123\""), field("Range", "bytes=500-")], status: 416),
        PlanCase(
            name: "If-Range false, Range unsatisfiable: 200",
            headers: [field("If-Range", "\"other\""), field("Range", "bytes=500-")], status: 200, body: whole),
    ]

    @Test("status and body", arguments: cases)
    func evaluates(_ row: PlanCase) {
        let result = row.run()
        #expect(result.status == row.status)
        if let body = row.body { #expect(result.body == body) }
        if result.status == 206 { #expect(result.value(for: "Content-Length") == String(result.contentLength)) }
    }

    @Test(
        "an unusable boundary turns several ranges into a 200",
        arguments: ["", "a b", "x\r\nEvil: 1", String(repeating: "b", count: 71)])
    func invalidBoundary(_ boundary: String) {
        let result = plan([field("Range", "bytes=0-1,4-5")], boundary: boundary)
        #expect(result.status == 200)
        #expect(plan([field("Range", "bytes=0-1")], boundary: boundary).status == 206)
    }

    @Test("maxRanges is configurable")
    func limits() {
        #expect(plan([field("Range", "bytes=0-1,4-5")], limits: RangeLimits(maxRanges: 1)).status == 200)
        #expect(plan([field("Range", "bytes=0-1")], limits: RangeLimits(maxRanges: 1)).status == 206)
        #expect(RangeLimits.default.maxRanges == 16)
    }
}
