import DepotCore

/// The parts of a `/v1/bundles/{digest}` request target that the bundle route reads.
struct BundleRequestTarget {
    /// The path prefix the bundle handler claims.
    static let prefix = "/v1/bundles/"

    /// The digest segment: as given (not yet checked), or already read as a digest from a request's bytes.
    private enum Segment {
        case text(Substring)
        case checked(BundleDigest)
    }

    private var segment: Segment
    /// The query string after `?`, if any.
    var query: Substring?

    /// The digest segment as given (not yet checked).
    var digest: Substring {
        switch segment {
        case .text(let text): text
        case .checked(let digest): Substring(digest.hex)
        }
    }

    /// A target whose digest segment was read as 64 lowercase hex digits from the request's bytes
    /// (``RequestHeadScanner``): nothing is parsed again.
    init(checkedDigest: BundleDigest, query: Substring?) {
        segment = .checked(checkedDigest)
        self.query = query
    }

    /// Splits an origin-form target (`/v1/bundles/...`) or an absolute-form one (`http://host[:port]/v1/bundles/...`,
    /// `https://...`, RFC 9112 §3.2.2: a server MUST accept the absolute form); nil when the path is not under
    /// `/v1/bundles/`. The authority of an absolute-form target is not checked: Host names are not used for routing.
    init?(uri: String) {
        // Compared as bytes: this runs for every request on the connection. An origin-form target in contiguous
        // UTF-8 (every target a decoder or the recognizer makes) is split by offsets.
        let utf8 = uri.utf8
        if utf8.first == 0x2F, let split = utf8.withContiguousStorageIfAvailable({ Self.originFormSplit($0) }) {
            guard let (start, mark) = split else { return nil }
            let digestStart = utf8.index(utf8.startIndex, offsetBy: start)
            if let mark {
                let markIndex = utf8.index(utf8.startIndex, offsetBy: mark)
                segment = .text(uri[digestStart..<markIndex])
                query = uri[utf8.index(after: markIndex)...]
            } else {
                segment = .text(uri[digestStart...])
                query = nil
            }
            return
        }
        let path = Self.pathAndQuery(of: Substring(uri).utf8)
        guard path.starts(with: Self.prefix.utf8) else { return nil }
        let rest = path.dropFirst(Self.prefix.utf8.count)
        if let mark = rest.firstIndex(of: 0x3F) {
            segment = .text(Substring(rest[..<mark]))
            query = Substring(rest[rest.index(after: mark)...])
        } else {
            segment = .text(Substring(rest))
            query = nil
        }
    }

    /// For an origin-form target's bytes: where the digest starts and where its `?` is, or nil when the path is
    /// not under the prefix.
    private static func originFormSplit(_ bytes: UnsafeBufferPointer<UInt8>) -> (start: Int, mark: Int?)? {
        let prefix = Self.prefix.utf8
        guard bytes.count >= prefix.count else { return nil }
        var index = 0
        for byte in prefix {
            guard bytes[index] == byte else { return nil }
            index += 1
        }
        var mark: Int?
        while index < bytes.count {
            if bytes[index] == 0x3F {
                mark = index
                break
            }
            index += 1
        }
        return (prefix.count, mark)
    }

    /// The target from its path on: the whole target in origin form; in absolute form, what follows the
    /// authority (empty when the authority is followed by no path).
    static func pathAndQuery(of target: Substring.UTF8View) -> Substring.UTF8View {
        guard target.first != 0x2F, let afterScheme = afterHTTPScheme(target) else { return target }
        // RFC 3986 §3.2: the authority ends at the first "/", "?" or "#".
        guard let end = target[afterScheme...].firstIndex(where: { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 }),
            target[end] == 0x2F
        else { return target[target.endIndex...] }
        return target[end...]
    }

    /// The index after `http://` or `https://` (the scheme compared case-insensitively, RFC 3986 §3.1).
    private static func afterHTTPScheme(_ target: Substring.UTF8View) -> Substring.UTF8View.Index? {
        for scheme in ["http://", "https://"] {
            let length = scheme.utf8.count
            guard target.count >= length else { continue }
            let head = target.prefix(length)
            if zip(head, scheme.utf8).allSatisfy({ (0x41...0x5A).contains($0) ? $0 + 0x20 == $1 : $0 == $1 }) {
                return target.index(target.startIndex, offsetBy: length)
            }
        }
        return nil
    }

    /// The bundle the target names: its digest segment when that is 64 lowercase hexadecimal digits.
    var bundleDigest: BundleDigest? {
        switch segment {
        case .text(let text): BundleDigest(hex: text)
        case .checked(let digest): digest
        }
    }

    /// The first `grant` parameter of the query, percent-decoded; nil when absent or undecodable.
    var grantParameter: String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "grant" else { continue }
            return Self.percentDecoded(parts[1])
        }
        return nil
    }

    /// Decodes `%XX` escapes and `+`; nil for a broken escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        guard text.utf8.contains(where: { $0 == 0x25 || $0 == 0x2B }) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case 0x2B: bytes.append(0x20)
            case 0x25:
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
