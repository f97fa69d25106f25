import DepotHTTP
import Testing

@Suite("Response header fields per status (RFC 9110 §15)")
struct ResponseHeaderTests {
    static let lastModified = exampleIMF
    static let etag = "\"abc123\""

    @Test("200: validators, Accept-Ranges, Content-Type, Content-Length, Cache-Control")
    func ok() {
        let result = plan([])
        #expect(result.status == 200)
        #expect(
            result.headers == [
                field("ETag", Self.etag), field("Last-Modified", Self.lastModified), field("Accept-Ranges", "bytes"),
                field("Content-Type", "application/zip"), field("Content-Length", "100"),
                field("Cache-Control", exampleCacheControl),
            ])
        #expect(result.body == .file(offset: 0, length: 100))
        #expect(result.contentLength == 100)
    }

    @Test("200 without Cache-Control when the representation has none")
    func okWithoutCacheControl() {
        let result = plan([], representation: representation(cacheControl: nil))
        #expect(result.value(for: "Cache-Control") == nil)
        #expect(result.headers.count == 5)
    }

    @Test("HEAD gets the same status and fields as GET")
    func head() {
        #expect(plan([], method: .head) == plan([], method: .get))
        #expect(plan([field("Range", "bytes=0-0")], method: .head) == plan([], method: .get))
        #expect(plan([field("If-None-Match", "*")], method: .head) == plan([field("If-None-Match", "*")], method: .get))
    }

    @Test("single-range 206: Content-Range, Content-Length, then what a 200 carries")
    func partial() {
        let result = plan([field("Range", "bytes=10-19")])
        #expect(result.status == 206)
        #expect(
            result.headers == [
                field("Content-Range", "bytes 10-19/100"), field("Content-Length", "10"), field("ETag", Self.etag),
                field("Last-Modified", Self.lastModified), field("Accept-Ranges", "bytes"),
                field("Content-Type", "application/zip"),
                field("Cache-Control", exampleCacheControl),
            ])
        #expect(result.body == .file(offset: 10, length: 10))
        #expect(result.contentLength == 10)
    }

    @Test("304: ETag and Cache-Control only; no Last-Modified, no Content-Length (§15.4.5)")
    func notModified() {
        let result = plan([field("If-None-Match", Self.etag)])
        #expect(
            result
                == ResponsePlan(
                    status: 304, headers: [field("ETag", Self.etag), field("Cache-Control", exampleCacheControl)],
                    body: .none,
                    contentLength: 0))
    }

    @Test("412: no header fields and no body from the plan")
    func preconditionFailed() {
        #expect(
            plan([field("If-Match", "\"x\"")]) == ResponsePlan(status: 412, headers: [], body: .none, contentLength: 0))
    }

    @Test("416: Content-Range bytes */N only (§15.5.17)")
    func rangeNotSatisfiable() {
        #expect(
            plan([field("Range", "bytes=100-")])
                == ResponsePlan(
                    status: 416, headers: [field("Content-Range", "bytes */100")], body: .none, contentLength: 0))
        #expect(
            plan([field("Range", "bytes=0-")], representation: representation(size: 0)).headers == [
                field("Content-Range", "bytes */0")
            ])
    }

    @Test("value(for:) ignores case; headerPairs keeps order")
    func lookup() {
        let result = plan([])
        #expect(result.value(for: "etag") == Self.etag)
        #expect(result.headerPairs.map(\.name) == result.headers.map(\.name))
    }
}
