/// One range-spec of a `bytes` Range header field (RFC 9110 §14.1.1), before it meets a representation.
///
/// Positions are saturated at `Int64.max` while parsing, so `bytes=0-99999999999999999999999` reads as
/// "from 0 to the end" instead of overflowing.
package enum RangeSpecifier: Sendable, Hashable {
    /// int-range `first-last` (inclusive); `last >= first` is guaranteed by the parser.
    case closed(first: Int64, last: Int64)
    /// int-range without last-pos: `first-`.
    case from(first: Int64)
    /// suffix-range `-length`: the last `length` bytes.
    case suffix(length: Int64)

    /// Parses one range-spec (no surrounding OWS); nil if malformed, including `last < first`.
    package init?(parsing bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard let hyphen = bytes[range].firstIndex(of: ASCII.hyphen) else { return nil }
        if hyphen == range.lowerBound {
            // suffix-range = "-" suffix-length
            guard let length = ASCII.parseDigits(bytes, hyphen + 1..<range.upperBound) else { return nil }
            self = .suffix(length: length)
            return
        }
        guard let first = ASCII.parseDigits(bytes, range.lowerBound..<hyphen) else { return nil }
        if hyphen + 1 == range.upperBound {
            self = .from(first: first)
            return
        }
        // RFC 9110 §14.1.1: an int-range with last-pos < first-pos is invalid, and so is the whole set.
        guard let last = ASCII.parseDigits(bytes, hyphen + 1..<range.upperBound), last >= first else {
            return nil
        }
        self = .closed(first: first, last: last)
    }
}
