/// A `Content-Range: bytes FIRST-LAST/COMPLETE` field of a 206 answer (RFC 9110 §14.4).
struct ContentRange: Sendable, Equatable {
    /// The first byte's offset.
    var first: Int64
    /// The last byte's offset (inclusive).
    var last: Int64
    /// The whole representation's length; nil for `*`.
    var complete: Int64?

    /// Parses the field; nil when it is not a satisfied byte range.
    init?(_ field: String) {
        let text = field.trimmingSpaces()
        guard text.hasPrefix("bytes "), let slash = text.firstIndex(of: "/") else { return nil }
        let range = text[text.index(text.startIndex, offsetBy: 6)..<slash].split(separator: "-", omittingEmptySubsequences: false)
        guard range.count == 2, let first = Self.number(range[0]), let last = Self.number(range[1]), first <= last else {
            return nil
        }
        let tail = text[text.index(after: slash)...]
        if tail == "*" {
            complete = nil
        } else {
            guard let complete = Self.number(tail), last < complete else { return nil }
            self.complete = complete
        }
        self.first = first
        self.last = last
    }

    init(first: Int64, last: Int64, complete: Int64?) {
        self.first = first
        self.last = last
        self.complete = complete
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        return Int64(text)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> SubSequence {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let start = firstIndex { !blank($0) } ?? endIndex
        let end = lastIndex { !blank($0) }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
