import NIOCore
import NIOHTTP1
import Testing

@testable import DepotOrigin

/// A head written in one pass into bytes reserved for its most is the head written measured first; one that needs
/// more than was reserved is written whole all the same.
struct ResponseHeadBytesTests {
    private static func pieces(_ sink: inout ResponseHeadBytes.Sink) {
        sink.statusLine(version: .http1_1, status: .partialContent)
        sink.field("Date", "Sun, 06 Nov 1994 08:49:37 GMT")
        sink.add("Content-Range: bytes ")
        sink.add(decimal: 65_536)
        sink.add(byte: UInt8(ascii: "-"))
        sink.add(decimal: 131_071)
        sink.add(byte: UInt8(ascii: "/"))
        sink.add(decimal: 8_388_608)
        sink.add("\r\n")
        sink.field(name: "X-Request-Id", value: "abc")
        sink.add("\r\n")
    }

    @Test func anEstimateOfAnySizeWritesTheSameHead() {
        var measured = ByteBuffer()
        ResponseHeadBytes.write(into: &measured, Self.pieces)
        let whole = String(buffer: measured)
        #expect(whole.hasPrefix("HTTP/1.1 206 Partial Content\r\nDate: "))
        #expect(whole.hasSuffix("Content-Range: bytes 65536-131071/8388608\r\nX-Request-Id: abc\r\n\r\n"))
        for estimate in [0, 1, 30, 31, whole.utf8.count - 1, whole.utf8.count, whole.utf8.count + 1, 1024] {
            var buffer = ByteBuffer(string: "before ")
            ResponseHeadBytes.write(into: &buffer, estimate: estimate, Self.pieces)
            #expect(String(buffer: buffer) == "before " + whole, "estimate \(estimate)")
        }
    }
}
