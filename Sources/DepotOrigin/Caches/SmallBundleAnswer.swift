import NIOCore

/// A small bundle's bytes, kept with its whole unconditional 200 answer (head and body in one buffer) as last
/// built: for the common request (a keep-alive HTTP/1.1 `GET` with no conditional field) that buffer is written as
/// it is; it is rebuilt when its `Date` changes (once a second at most), and the body is a view of it, so the
/// bytes are kept once.
final class SmallBundleAnswer {
    /// The buffer: an answer's head (none before the first answer), then the bundle's bytes.
    private var answer: ByteBuffer
    /// Where the bundle's bytes start in `answer`, and how many there are.
    private var bodyStart = 0
    private let size: Int
    /// The second whose `Date` the head carries; -1 while there is no head.
    private var second: Int64 = -1

    /// The answer for a bundle whose bytes are `body`.
    init(body: ByteBuffer) {
        answer = body
        size = body.readableBytes
    }

    /// The bundle's bytes.
    var body: ByteBuffer {
        answer.getSlice(at: answer.readerIndex + bodyStart, length: size)!
    }

    /// The whole 200 answer: `headPrefix` (status line and fields), `Date: date`, the empty line, the body.
    func keepAliveAnswer(headPrefix: [UInt8], date: String, second: Int64, allocator: ByteBufferAllocator) -> ByteBuffer {
        if second == self.second { return answer }
        var buffer = allocator.buffer(capacity: headPrefix.count + 40 + size)
        ResponseHeadBytes.write(into: &buffer) { sink in
            sink.add(headPrefix)
            sink.field("Date", date)
            sink.add("\r\n")
        }
        let start = buffer.readableBytes
        var bytes = body
        buffer.writeBuffer(&bytes)
        (answer, bodyStart, self.second) = (buffer, start, second)
        return buffer
    }
}

/// Bound to one event loop.
@available(*, unavailable)
extension SmallBundleAnswer: Sendable {}
