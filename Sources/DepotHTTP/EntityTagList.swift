/// The value of If-Match or If-None-Match (RFC 9110 §13.1.1, §13.1.2): `*` or a list of entity-tags.
///
/// Several field lines combine into one list, in order (RFC 9110 §5.3). `*` must stand alone: a `*` next
/// to other members, on the same line or another, makes the whole field malformed.
package enum EntityTagList: Sendable, Equatable {
    /// `*`: matches any current representation.
    case any
    /// The listed tags, in order; empty elements are skipped, so the list may be empty.
    case tags([EntityTag])

    /// The outcome of matching a field against the current entity tag.
    package enum Match: Sendable, Equatable {
        case matched
        case notMatched
        /// The field does not follow the grammar; the caller decides what that means.
        case malformed
    }

    /// Parses the field lines of one field; nil if malformed.
    package init?(fieldLines: [String]) {
        var tags: [EntityTag] = []
        let shape = Self.scan(fieldLines) { bytes, scanned in tags.append(EntityTag(bytes, scanned)) }
        switch shape {
        case .any: self = .any
        case .list: self = .tags(tags)
        case .malformed: return nil
        }
    }

    /// Whether the list contains `tag` under `comparison` (`*` contains every tag).
    package func contains(_ tag: EntityTag, by comparison: EntityTagComparison) -> Bool {
        switch self {
        case .any: true
        case .tags(let tags): tags.contains { $0.matches(tag, by: comparison) }
        }
    }

    /// Matches the field lines against the current (strong) tag without building the list; the whole
    /// field is validated even after a match, so a malformed field is always reported as such.
    package static func match(
        _ fieldLines: [String], currentTag: String, by comparison: EntityTagComparison
    ) -> Match {
        var matched = false
        var current = currentTag
        let shape = current.withUTF8 { currentBytes in
            scan(fieldLines) { bytes, scanned in
                guard !matched, comparison == .weak || !scanned.isWeak else { return }
                let opaque = UnsafeBufferPointer(rebasing: bytes[scanned.opaque])
                matched = opaque.elementsEqual(currentBytes)
            }
        }
        switch shape {
        case .any: return .matched  // A current representation exists (RFC 9110 §13.1.1, §13.1.2).
        case .list: return matched ? .matched : .notMatched
        case .malformed: return .malformed
        }
    }

    private static func scan(
        _ fieldLines: [String], visit: (UnsafeBufferPointer<UInt8>, EntityTagScanner.ScannedTag) -> Void
    ) -> EntityTagScanner.LineShape {
        var sawAny = false
        for line in fieldLines {
            let shape = withUTF8Bytes(line) { EntityTagScanner.scanLine($0, visit: visit) }
            switch shape {
            case .malformed: return .malformed
            case .any: sawAny = true
            case .list: break
            }
        }
        if sawAny { return fieldLines.count == 1 ? .any : .malformed }
        return .list
    }
}
