import NIOCore
import NIOHTTP1

extension ResponseHeadBytes {
    /// Where the pieces of a response head go: counted first, then copied into the buffer's reserved bytes, so that a
    /// whole head costs one reservation instead of one buffer write (and its checks) per piece. Or copied at once
    /// into bytes reserved for the most the head can take: nothing is written past them (`overflowed` then says so).
    struct Sink {
        /// The reserved bytes; nil while measuring.
        private let out: UnsafeMutableRawBufferPointer?
        /// Bytes measured or written so far.
        private(set) var count = 0
        /// Whether the pieces needed more bytes than were reserved: what was written is incomplete.
        private(set) var overflowed = false

        fileprivate init(out: UnsafeMutableRawBufferPointer?) {
            self.out = out
        }

        /// Appends bytes.
        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            guard !bytes.isEmpty else { return }
            if let out {
                if count + bytes.count <= out.count {
                    out.baseAddress!.advanced(by: count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                } else {
                    overflowed = true
                }
            }
            count += bytes.count
        }

        /// Appends a literal.
        mutating func add(_ text: StaticString) {
            add(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        /// Appends a string's UTF-8 (literals go to the `StaticString` form, which costs no reference count).
        mutating func add(string text: String) {
            var text = text
            text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
        }

        /// Appends prepared bytes.
        mutating func add(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { add($0) }
        }

        /// Appends one byte.
        mutating func add(byte: UInt8) {
            if let out {
                if count < out.count { out[count] = byte } else { overflowed = true }
            }
            count += 1
        }

        /// Appends a non-negative number in decimal, with no `String` made for it: its digits are made once, last
        /// first, in a few bytes on the stack, then appended.
        mutating func add(decimal value: Int64) {
            precondition(value >= 0, "only lengths and offsets are written")
            // Room for the 19 digits of the largest Int64.
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
            withUnsafeMutableBytes(of: &digits) { raw in
                var position = raw.count
                var number = UInt64(value)
                repeat {
                    position -= 1
                    raw[position] = UInt8(truncatingIfNeeded: 0x30 &+ number % 10)
                    number /= 10
                } while number > 0
                add(UnsafeRawBufferPointer(rebasing: raw[position...]))
            }
        }

        /// Appends `name: value` and CRLF, for a name spelled in the code.
        mutating func field(_ name: StaticString, _ value: String) {
            add(name)
            add(": ")
            add(string: value)
            add("\r\n")
        }

        /// Appends `name: value` and CRLF.
        mutating func field(name: String, value: String) {
            add(string: name)
            add(": ")
            add(string: value)
            add("\r\n")
        }

        /// Appends `HTTP/x.y code reason` and CRLF.
        mutating func statusLine(version: HTTPVersion, status: HTTPResponseStatus) {
            if version == .http1_1 {
                add("HTTP/1.1 ")
            } else if version == .http1_0 {
                add("HTTP/1.0 ")
            } else {
                add(string: "HTTP/\(version.major).\(version.minor) ")
            }
            let code = status.code
            if (100...999).contains(code) {
                add(byte: UInt8(truncatingIfNeeded: 0x30 + code / 100))
                add(byte: UInt8(truncatingIfNeeded: 0x30 + code / 10 % 10))
                add(byte: UInt8(truncatingIfNeeded: 0x30 + code % 10))
            } else {
                add(string: String(code))
            }
            add(" ")
            add(string: status.reasonPhrase)
            add("\r\n")
        }
    }

    /// Writes what `pieces` appends to a sink into `buffer` in one pass when it takes at most `estimate` bytes, else as
    /// ``write(into:_:)`` does (a second and third run: `pieces` must append the same every time). For a head whose
    /// size is known within a bound: it is not measured first.
    static func write(into buffer: inout ByteBuffer, estimate: Int, _ pieces: (inout Sink) -> Void) {
        let written = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: estimate) { raw in
            var sink = Sink(out: UnsafeMutableRawBufferPointer(rebasing: raw[..<estimate]))
            pieces(&sink)
            return sink.overflowed ? 0 : sink.count
        }
        if written == 0 { write(into: &buffer, pieces) }
    }

    /// Writes what `pieces` appends to a sink into `buffer` with one reservation: `pieces` runs twice, to measure and
    /// to copy, and must append the same both times.
    static func write(into buffer: inout ByteBuffer, _ pieces: (inout Sink) -> Void) {
        var measure = Sink(out: nil)
        pieces(&measure)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: measure.count) { raw in
            var sink = Sink(out: raw)
            pieces(&sink)
            return sink.count
        }
    }
}
