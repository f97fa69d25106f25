import Testing

@testable import DepotClient

/// `Content-Range` of a 206, parsed strictly: a resume must continue exactly where the bytes on disk end.
@Suite struct ContentRangeTests {
    @Test(
        arguments: [
            ("bytes 0-99/100", ContentRange(first: 0, last: 99, complete: 100)),
            ("bytes 100-199/*", ContentRange(first: 100, last: 199, complete: nil)),
            ("  bytes 5-5/6 ", ContentRange(first: 5, last: 5, complete: 6)),
            ("bytes 10-9/100", nil),
            ("bytes 0-100/100", nil),
            ("bytes */100", nil),
            ("bytes -5/100", nil),
            ("bytes 1-2", nil),
            ("items 0-1/2", nil),
            ("bytes 0-1/2x", nil),
            ("bytes +1-2/3", nil),
            ("bytes 0-1/99999999999999999999999", nil),
        ] as [(String, ContentRange?)])
    func parses(_ field: String, _ expected: ContentRange?) {
        #expect(ContentRange(field) == expected)
    }
}
