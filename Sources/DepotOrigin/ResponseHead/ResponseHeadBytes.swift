import NIOCore
import NIOHTTP1

/// An HTTP/1.1 response head serialized by hand (RFC 9112 §4, §5), so that bundle answers can be written
/// straight to the socket below NIO's response encoder: a bundle's unconditional 200 head is prepared
/// once, and each answer adds only its Date and Connection fields.
enum ResponseHeadBytes {
    /// Appends the status line and header fields of `head`, and the empty line that ends them.
    static func write(_ head: HTTPResponseHead, into buffer: inout ByteBuffer) {
        write(into: &buffer) { sink in
            sink.statusLine(version: head.version, status: head.status)
            for (name, value) in head.headers { sink.field(name: name, value: value) }
            sink.add("\r\n")
        }
    }

    /// Appends `HTTP/x.y code reason`.
    static func writeStatusLine(version: HTTPVersion, status: HTTPResponseStatus, into buffer: inout ByteBuffer) {
        write(into: &buffer) { $0.statusLine(version: version, status: status) }
    }

    /// Appends one `name: value` line.
    static func writeField(_ name: String, _ value: String, into buffer: inout ByteBuffer) {
        buffer.writeString(name)
        buffer.writeStaticString(": ")
        buffer.writeString(value)
        buffer.writeStaticString("\r\n")
    }

    /// Field lines, serialized.
    static func fields(_ fields: [(String, String)]) -> [UInt8] {
        var buffer = ByteBufferAllocator().buffer(capacity: 256)
        for (name, value) in fields { writeField(name, value, into: &buffer) }
        return Array(buffer.readableBytesView)
    }

    /// The status line and fields of an HTTP/1.1 200 with `headers`, without the closing empty line.
    static func prefix(of headers: HTTPHeaders) -> [UInt8] {
        var buffer = ByteBufferAllocator().buffer(capacity: 512)
        writeStatusLine(version: .http1_1, status: .ok, into: &buffer)
        for (name, value) in headers { writeField(name, value, into: &buffer) }
        return Array(buffer.readableBytesView)
    }
}
