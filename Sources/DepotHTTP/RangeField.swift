/// The parsed value of a Range header field (RFC 9110 §14.2):
/// `ranges-specifier = range-unit "=" range-set`, `range-set = 1#range-spec`.
///
/// Leniency: OWS is tolerated around the whole value and around commas, and empty list elements are
/// skipped (§5.6.1.2); there is no whitespace around `=` or inside a range-spec. The unit is compared
/// case-insensitively (§14.1). Only digits count as digits: `+1`, `1 2` and `0x1` are malformed.
package enum RangeField: Sendable, Equatable {
    /// A well-formed `bytes` range set, in the order the client sent it.
    case bytes([RangeSpecifier])
    /// A well-formed field with a unit other than `bytes`: ignored (§14.2).
    case unsupportedUnit
    /// A field that does not follow the grammar, or an empty range set: ignored (§14.2).
    case malformed
    /// More than `maxRanges` range-specs: Depot ignores the field (§14.2 lets a server ignore a Range
    /// header; it is cheaper than a long multipart answer and removes an amplification lever).
    case tooManyRanges

    /// Parses one Range field line, stopping as soon as more than `maxRanges` range-specs are seen.
    package static func parse(_ value: some StringProtocol, maxRanges: Int) -> RangeField {
        withUTF8Bytes(value) { parse($0, maxRanges: maxRanges) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxRanges: Int) -> RangeField {
        let value = ASCII.trimmingOWS(bytes, 0..<bytes.count)
        guard let equals = bytes[value].firstIndex(of: ASCII.equals), equals > value.lowerBound else {
            return .malformed
        }
        let unit = UnsafeBufferPointer(rebasing: bytes[value.lowerBound..<equals])
        guard unit.allSatisfy(ASCII.isTokenCharacter) else { return .malformed }
        guard ASCII.equalsIgnoringCase(unit, "bytes") else { return .unsupportedUnit }
        // No OWS right after "=": the grammar has none there.
        guard equals + 1 < value.upperBound, !ASCII.isOWS(bytes[equals + 1]) else { return .malformed }

        var specs: [RangeSpecifier] = []
        var elementStart = equals + 1
        while elementStart <= value.upperBound {
            var elementEnd = elementStart
            while elementEnd < value.upperBound, bytes[elementEnd] != ASCII.comma { elementEnd += 1 }
            let element = ASCII.trimmingOWS(bytes, elementStart..<elementEnd)
            if !element.isEmpty {
                guard let spec = RangeSpecifier(parsing: bytes, element) else { return .malformed }
                guard specs.count < maxRanges else { return .tooManyRanges }
                specs.append(spec)
            }
            elementStart = elementEnd + 1
        }
        return specs.isEmpty ? .malformed : .bytes(specs)
    }
}

/// Limits that keep a Range request from costing more than the representation itself.
package struct RangeLimits: Sendable {
    /// The most range-specs accepted in one Range field; more and the field is ignored (200).
    package var maxRanges: Int

    package init(maxRanges: Int = 16) {
        self.maxRanges = maxRanges
    }

    /// 16 ranges.
    package static let `default` = RangeLimits()
}
