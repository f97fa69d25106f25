/// An entity tag (RFC 9110 §8.8.3): an opaque tag plus a weakness flag, as carried by ETag, If-Match,
/// If-None-Match and If-Range.
package struct EntityTag: Sendable, Hashable {
    /// The opaque-tag's content, without the surrounding double quotes.
    package var opaqueTag: String
    /// True for a `W/"..."` tag.
    package var isWeak: Bool

    /// Creates a tag from its content (no quotes); Depot's own tags are strong.
    package init(opaqueTag: String, isWeak: Bool = false) {
        self.opaqueTag = opaqueTag
        self.isWeak = isWeak
    }

    /// The field-value form written in ETag: `"abc"` or `W/"abc"`.
    package var fieldValue: String {
        isWeak ? "W/\"" + opaqueTag + "\"" : "\"" + opaqueTag + "\""
    }

    /// Parses exactly one entity-tag (surrounding OWS allowed); nil if malformed.
    package init?(parsing value: some StringProtocol) {
        let parsed: EntityTag? = withUTF8Bytes(value) { bytes in
            let range = ASCII.trimmingOWS(bytes, 0..<bytes.count)
            guard let scanned = EntityTagScanner.scanTag(bytes, from: range.lowerBound, upTo: range.upperBound),
                scanned.end == range.upperBound
            else { return nil }
            return EntityTag(bytes, scanned)
        }
        guard let parsed else { return nil }
        self = parsed
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>, _ scanned: EntityTagScanner.ScannedTag) {
        self.init(opaqueTag: String(decoding: bytes[scanned.opaque], as: UTF8.self), isWeak: scanned.isWeak)
    }

    /// Compares two tags (RFC 9110 §8.8.3.2): strong comparison needs both tags strong and identical
    /// opaque tags; weak comparison needs identical opaque tags only.
    package func matches(_ other: EntityTag, by comparison: EntityTagComparison) -> Bool {
        if comparison == .strong, isWeak || other.isWeak { return false }
        return opaqueTag.utf8.elementsEqual(other.opaqueTag.utf8)
    }
}

/// The two comparison functions of RFC 9110 §8.8.3.2.
package enum EntityTagComparison: Sendable {
    /// Used by If-Match and If-Range.
    case strong
    /// Used by If-None-Match.
    case weak
}
