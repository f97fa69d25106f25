/// An inclusive, satisfiable byte range of a representation: `first...last`, as written in Content-Range.
package struct ByteRange: Sendable, Hashable {
    package var first: Int64
    package var last: Int64

    package init(first: Int64, last: Int64) {
        self.first = first
        self.last = last
    }

    /// The number of bytes in the range.
    package var length: Int64 { last - first + 1 }

    /// The Content-Range value for this range of a representation of `size` bytes: `bytes a-b/N`.
    package func contentRange(size: Int64) -> String {
        "bytes " + String(first) + "-" + String(last) + "/" + String(size)
    }
}

/// Range specs resolved against a representation's size (RFC 9110 §14.1.1): satisfiable ranges only,
/// sorted ascending, with overlapping or adjacent ranges coalesced.
package struct ByteRangeSet: Sendable, Hashable {
    /// Ascending and pairwise separated by at least one byte; from `resolve`, non-empty and within `0..<size`.
    package private(set) var ranges: [ByteRange]

    /// What the Range header asks for once the representation's size is known.
    package enum Resolution: Sendable, Hashable {
        case satisfiable(ByteRangeSet)
        /// No range-spec is satisfiable: 416 (RFC 9110 §15.5.17).
        case unsatisfiable
        /// The satisfiable ranges add up to more bytes than the representation: Depot ignores the Range
        /// field (§14.2 allows it) so that overlapping ranges cannot amplify a response.
        case excessive
    }

    /// Resolves one int-range `first-last` (first ≤ last) against a representation of `size` bytes: satisfiable when
    /// first-pos < size, with last-pos past the end clipped to size - 1 (RFC 9110 §14.1.1); nil otherwise.
    package static func resolve(first: Int64, last: Int64, size: Int64) -> ByteRange? {
        first < size ? ByteRange(first: first, last: min(last, size - 1)) : nil
    }

    /// Resolves `specs` against a representation of `size` bytes.
    ///
    /// RFC 9110 §14.1.1: an int-range is satisfiable when first-pos < size (last-pos past the end is
    /// clipped to size - 1); a suffix-range when its length is > 0 (a suffix longer than the
    /// representation means all of it). Nothing is satisfiable in an empty representation.
    package static func resolve(_ specs: [RangeSpecifier], size: Int64) -> Resolution {
        guard size > 0 else { return .unsatisfiable }
        var ranges: [ByteRange] = []
        ranges.reserveCapacity(specs.count)
        var total: Int64 = 0
        for spec in specs {
            let range: ByteRange
            switch spec {
            case .closed(let first, let last):
                guard let resolved = resolve(first: first, last: last, size: size) else { continue }
                range = resolved
            case .from(let first):
                guard first < size else { continue }
                range = ByteRange(first: first, last: size - 1)
            case .suffix(let length):
                guard length > 0 else { continue }
                range = ByteRange(first: size - min(length, size), last: size - 1)
            }
            // Compared without adding, so the sum cannot overflow.
            guard range.length <= size - total else { return .excessive }
            total += range.length
            ranges.append(range)
        }
        guard !ranges.isEmpty else { return .unsatisfiable }
        return .satisfiable(ByteRangeSet(coalescing: ranges))
    }

    /// Sorts and merges ranges that overlap or touch (RFC 9110 §14.6 lets a server coalesce them).
    package init(coalescing unsorted: [ByteRange]) {
        var merged: [ByteRange] = []
        merged.reserveCapacity(unsorted.count)
        for range in unsorted.sorted(by: { ($0.first, $0.last) < ($1.first, $1.last) }) {
            // `last < Int64.max` always holds for a resolved range, so `last + 1` cannot overflow;
            // the check keeps hand-built sets safe too.
            if let previous = merged.last, previous.last == .max || range.first <= previous.last + 1 {
                merged[merged.count - 1].last = max(previous.last, range.last)
            } else {
                merged.append(range)
            }
        }
        ranges = merged
    }
}
