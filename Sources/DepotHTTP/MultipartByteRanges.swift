/// Lays out a multipart/byteranges body (RFC 9110 §14.6) for several ranges of one representation.
///
/// Writes the response's `Content-Type: multipart/byteranges; boundary=...` and, inside each body part,
/// Content-Type and Content-Range. Layout, for parts 1...n:
///
///     --B CRLF Content-Type: T CRLF Content-Range: bytes a-b/N CRLF CRLF <file bytes a...b>
///     CRLF --B CRLF ...                                                  <file bytes c...d>
///     CRLF --B-- CRLF
///
/// The first delimiter has no leading CRLF: with no preamble, the body starts with the delimiter itself
/// (RFC 2046 §5.1.1).
package enum MultipartByteRanges {
    /// The response Content-Type for `boundary`.
    package static func contentType(boundary: String) -> String {
        "multipart/byteranges; boundary=" + boundary
    }

    /// Whether `boundary` can be used as is: 1 to 70 characters (RFC 2046 §5.1.1) drawn from letters,
    /// digits and `'+-._`, the characters that are both bchars and tchars, so the boundary parameter needs
    /// no quoting (RFC 9110 §5.6.6).
    package static func isValidBoundary(_ boundary: String) -> Bool {
        let bytes = boundary.utf8
        guard (1...70).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            ASCII.isDigit(byte) || ASCII.isAlpha(byte) || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
    }

    /// The body segments and their exact total length; nil only if the length would overflow `Int64`.
    ///
    /// Consecutive literals are merged, so segments alternate literal, file, literal, ..., literal.
    package static func body(
        ranges: [ByteRange], size: Int64, contentType: String, boundary: String
    ) -> (segments: [BodySegment], length: Int64)? {
        var segments: [BodySegment] = []
        segments.reserveCapacity(ranges.count * 2 + 1)
        var pending: [UInt8] = []
        var length: Int64 = 0
        var overflow = false

        func add(_ count: Int64) {
            let (sum, didOverflow) = length.addingReportingOverflow(count)
            length = sum
            overflow = overflow || didOverflow
        }
        func flushLiteral() {
            guard !pending.isEmpty else { return }
            add(Int64(pending.count))
            segments.append(.literal(pending))
            pending = []
        }

        for (index, range) in ranges.enumerated() {
            if index > 0 { pending.append(contentsOf: "\r\n".utf8) }
            pending.append(contentsOf: "--".utf8)
            pending.append(contentsOf: boundary.utf8)
            pending.append(contentsOf: "\r\nContent-Type: ".utf8)
            pending.append(contentsOf: contentType.utf8)
            pending.append(contentsOf: "\r\nContent-Range: ".utf8)
            pending.append(contentsOf: range.contentRange(size: size).utf8)
            pending.append(contentsOf: "\r\n\r\n".utf8)
            guard range.length > 0 else { continue }
            flushLiteral()
            add(range.length)
            segments.append(.file(offset: range.first, length: range.length))
        }
        pending.append(contentsOf: "\r\n--".utf8)
        pending.append(contentsOf: boundary.utf8)
        pending.append(contentsOf: "--\r\n".utf8)
        flushLiteral()
        return overflow ? nil : (segments, length)
    }
}
