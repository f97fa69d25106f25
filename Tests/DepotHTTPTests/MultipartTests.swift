import DepotHTTP
import Testing

@Suite("multipart/byteranges (RFC 9110 §14.6)")
struct MultipartTests {
    static let file = Array("abcdefghijklmnopqrst".utf8)

    @Test("exact layout of a two-part body")
    func exactBytes() {
        let result = plan(
            [field("Range", "bytes=15-16, 0-1")],
            representation: representation(size: 20, contentType: "text/plain", cacheControl: nil), boundary: "B")
        let first = Array("--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-1/20\r\n\r\n".utf8)
        let second = Array("\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 15-16/20\r\n\r\n".utf8)
        let end = Array("\r\n--B--\r\n".utf8)
        #expect(result.status == 206)
        #expect(
            result.body
                == .segments([
                    .literal(first), .file(offset: 0, length: 2), .literal(second), .file(offset: 15, length: 2),
                    .literal(end),
                ]))
        let expected =
            "--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-1/20\r\n\r\nab"
            + "\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 15-16/20\r\n\r\npq\r\n--B--\r\n"
        let bytes = materialize(result, file: Self.file)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(result.contentLength == Int64(expected.utf8.count))
        #expect(
            result.headers == [
                field("Content-Type", "multipart/byteranges; boundary=B"),
                field("Content-Length", String(expected.utf8.count)),
                field("ETag", "\"abc123\""), field("Last-Modified", exampleIMF), field("Accept-Ranges", "bytes"),
            ])
    }

    @Test("segments alternate literal and file, and the length is their exact sum")
    func alternation() {
        let result = plan([field("Range", "bytes=0-0,2-2,4-4,6-6,-1")], representation: representation(size: 20))
        guard case .segments(let segments) = result.body else {
            Issue.record("expected segments, got \(result.body)")
            return
        }
        #expect(segments.count == 11)
        var total: Int64 = 0
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .literal(let bytes):
                #expect(index % 2 == 0)
                total += Int64(bytes.count)
            case .file(let offset, let length):
                #expect(index % 2 == 1)
                #expect(offset >= 0 && offset + length <= 20)
                total += length
            }
        }
        #expect(total == result.contentLength)
    }

    @Test(
        "boundary validation",
        arguments: [("B", true), ("a'b+c-d.e_f9", true), ("", false), ("a b", false), ("a/b", false), ("é", false)])
    func boundaries(_ boundary: String, _ valid: Bool) {
        #expect(MultipartByteRanges.isValidBoundary(boundary) == valid)
    }

    @Test("a length past Int64.max is refused instead of overflowing")
    func overflow() {
        let ranges = [ByteRange(first: 0, last: .max - 2), ByteRange(first: .max - 1, last: .max - 1)]
        #expect(MultipartByteRanges.body(ranges: ranges, size: .max, contentType: "x", boundary: "B") == nil)
    }
}
