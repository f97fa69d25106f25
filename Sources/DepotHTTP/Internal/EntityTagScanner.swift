// Scans entity-tags and entity-tag lists over UTF-8 bytes without allocating (RFC 9110 §8.8.3, §5.6.1).
//   entity-tag = [ weak ] opaque-tag        weak = %s"W/"   (case-sensitive)
//   opaque-tag = DQUOTE *etagc DQUOTE       etagc = %x21 / %x23-7E / obs-text

enum EntityTagScanner {
    struct ScannedTag {
        var isWeak: Bool
        /// The bytes between the quotes.
        var opaque: Range<Int>
        /// The index just past the closing quote.
        var end: Int
    }

    /// The shape of one If-Match / If-None-Match field line.
    enum LineShape {
        case any
        case list
        case malformed
    }

    /// Scans one entity-tag starting exactly at `start`.
    static func scanTag(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, upTo end: Int) -> ScannedTag? {
        var index = start
        var isWeak = false
        if index + 1 < end, bytes[index] == UInt8(ascii: "W"), bytes[index + 1] == UInt8(ascii: "/") {
            isWeak = true
            index += 2
        }
        guard index < end, bytes[index] == ASCII.quote else { return nil }
        index += 1
        let opaqueStart = index
        while index < end {
            let byte = bytes[index]
            if byte == ASCII.quote {
                return ScannedTag(isWeak: isWeak, opaque: opaqueStart..<index, end: index + 1)
            }
            guard byte >= 0x21, byte != 0x7F else { return nil }  // etagc excludes CTLs, SP and DEL.
            index += 1
        }
        return nil
    }

    /// Scans `"*" / #entity-tag` in one field line, calling `visit` for every tag in order.
    /// RFC 9110 §5.6.1.2: empty list elements (`, ,"a"`) are accepted and skipped.
    static func scanLine(
        _ bytes: UnsafeBufferPointer<UInt8>, visit: (UnsafeBufferPointer<UInt8>, ScannedTag) -> Void
    ) -> LineShape {
        let range = ASCII.trimmingOWS(bytes, 0..<bytes.count)
        if range.count == 1, bytes[range.lowerBound] == UInt8(ascii: "*") { return .any }
        var index = range.lowerBound
        let end = range.upperBound
        while index < end {
            let byte = bytes[index]
            if ASCII.isOWS(byte) || byte == ASCII.comma {
                index += 1
                continue
            }
            guard let tag = scanTag(bytes, from: index, upTo: end) else { return .malformed }
            visit(bytes, tag)
            index = tag.end
            while index < end, ASCII.isOWS(bytes[index]) { index += 1 }
            guard index == end || bytes[index] == ASCII.comma else { return .malformed }
        }
        return .list
    }
}
