import NIOCore
import NIOHTTP1

extension ResponseHeadBytes {
    /// Where the pieces of a response head go: counted first, then copied into the buffer's reserved bytes, so that a
    /// whole head costs one reservation instead of one buffer write (and its checks) per piece.
    struct Sink {
        /// The reserved bytes; nil while measuring.
        private let out: UnsafeMutableRawBufferPointer?
        /// Bytes measured or written so far.
        private(set) var count = 0

        fileprivate init(out: UnsafeMutableRawBufferPointer?) {
            self.out = out
        }

        /// Appends bytes.
        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            guard !bytes.isEmpty else { return }
            if let out { out.baseAddress!.advanced(by: count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
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
            if let out { out[count] = byte }
            count += 1
        }

        /// Appends a non-negative number in decimal, with no `String` made for it.
        mutating func add(decimal value: Int64) {
            precondition(value >= 0, "only lengths and offsets are written")
            var digits = 1
            var rest = value / 10
            while rest > 0 {
                digits += 1
                rest /= 10
            }
            if let out {
                var number = value
                for position in stride(from: count + digits - 1, through: count, by: -1) {
                    out[position] = UInt8(truncatingIfNeeded: 0x30 + number % 10)
                    number /= 10
                }
            }
            count += digits
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
