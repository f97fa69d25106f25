import DepotCore
import DepotHTTP

#if canImport(Glibc)
import Glibc
#endif

/// Reads the head of the request that starts a connection's unread bytes, without building anything for it
/// unless it is a plain bundle request: where the head ends, how its body is framed, whether it breaks the
/// limits (414, 431), and, for `GET`/`HEAD /v1/bundles/...`, the ``RecognizedBundleRequest`` to answer at once.
///
/// Pure: bytes in, an outcome out. It frames a request only where RFC 9112 leaves no room for doubt (a body of
/// no bytes or of one `Content-Length`), and reads field lines only in their strict form (`name:` with no space
/// before the colon, CRLF line ends, no obs-fold): anything else is for NIO's decoder to judge, as before.
/// A bundle request is recognized only when NIO's decoder would have read the same method, target, fields and
/// framing from it, so that its answer does not depend on which path read it.
struct RequestHeadScanner {
    /// How the body after a head is framed.
    enum BodyFraming: Equatable {
        /// No body (RFC 9112 §6.3: a request with neither `Content-Length` nor `Transfer-Encoding`).
        case none
        /// This many bytes (one valid `Content-Length`).
        case length(Int)
        /// Framed otherwise (`Transfer-Encoding`, several or broken `Content-Length` fields, an upgrade, CONNECT):
        /// the scanner cannot tell where the next request starts.
        case unknown
    }

    /// What the bytes hold.
    enum Outcome {
        /// The head is not complete yet, and within the limits so far.
        case needMore
        /// The request target is longer than allowed (414).
        case targetTooLong
        /// The head is larger, or has more field lines, than allowed (431).
        case headTooLarge
        /// A complete head of `length` bytes whose body is framed as `body`; `bundle` when it is a plain bundle request.
        case head(length: Int, body: BodyFraming, bundle: RecognizedBundleRequest?)
        /// Bytes that are not a head in strict form: NIO's decoder judges them, and the rest of the connection.
        case unframeable
    }

    let limits: RequestHeadLimits
    /// The lowercase name of the field an edge presents its secret in, when edges may fill: such requests are
    /// left to the full path.
    let edgeSecretField: [UInt8]?

    /// The path prefix of bundle targets, as bytes.
    private static let bundlePrefix = Array(BundleRequestTarget.prefix.utf8)
    /// The start of the HTTP/1.x version, as bytes.
    private static let versionPrefix = Array("HTTP/1.".utf8)

    /// Reads the head at the start of `bytes`; a `Bearer` token whose bytes are `previousToken`'s (the one the
    /// connection sent last, most connections send one grant throughout) is that string again, not a new one.
    func scan(_ bytes: UnsafeRawBufferPointer, previousToken: String? = nil) -> Outcome {
        let count = bytes.count
        var index = 0
        // Request line (RFC 9112 §3): method SP request-target SP HTTP-version CRLF.
        while index < count, Self.isTokenByte(bytes[index]) { index += 1 }
        guard index < count else { return incomplete(count) }
        guard index > 0, bytes[index] == .space else { return .unframeable }
        let method = 0..<index
        index += 1
        let targetStart = index
        var targetIsPlain = true
        // The commonest target of all, the bundle prefix and 64 lowercase hex digits, is read as a digest where it
        // lies; what may follow (`?` and a query) is read as any target is.
        let checkedDigest = Self.digestTarget(bytes, at: targetStart, maxTargetBytes: limits.maxTargetBytes)
        if checkedDigest != nil { index += Self.digestTargetLength }
        while index < count, bytes[index] != .space {
            let byte = bytes[index]
            if byte == .cr || byte == .lf { return .unframeable }
            if !Self.isPlainTargetByte(byte) { targetIsPlain = false }
            index += 1
            if index - targetStart > limits.maxTargetBytes { return .targetTooLong }
        }
        guard index < count else { return incomplete(count) }
        let target = targetStart..<index
        guard !target.isEmpty else { return .unframeable }
        index += 1
        // "HTTP/1.1" or "HTTP/1.0", then CRLF: one comparison of eight bytes when all ten are here, else byte by byte.
        let version = Self.versionPrefix
        let versionWord =
            index + 10 <= count ? bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self).littleEndian : 0
        let whole =
            (versionWord == Self.http11Word || versionWord == Self.http10Word) && bytes[index + 8] == .cr
            && bytes[index + 9] == .lf
        for offset in 0..<10 where !whole {
            guard index + offset < count else { return incomplete(count) }
            let byte = bytes[index + offset]
            let fits: Bool
            switch offset {
            case 0..<7: fits = byte == version[offset]
            case 7: fits = byte == UInt8(ascii: "1") || byte == UInt8(ascii: "0")
            case 8: fits = byte == .cr
            default: fits = byte == .lf
            }
            guard fits else { return .unframeable }
        }
        let isHTTP11 = bytes[index + 7] == UInt8(ascii: "1")
        index += 10

        var fields = FieldFacts()
        var fieldCount = 0
        // Field lines (RFC 9112 §5), up to the empty line.
        while true {
            guard index < count else { return incomplete(count) }
            if bytes[index] == .cr {
                guard index + 1 < count else { return incomplete(count) }
                guard bytes[index + 1] == .lf else { return .unframeable }
                index += 2
                break
            }
            let nameStart = index
            while index < count, Self.isTokenByte(bytes[index]) { index += 1 }
            guard index < count else { return incomplete(count) }
            // Whitespace before the colon, an obs-fold line (starting with SP or HTAB), a bare LF: not strict form.
            guard index > nameStart, bytes[index] == .colon else { return .unframeable }
            let name = nameStart..<index
            index += 1
            while index < count, bytes[index] == .space || bytes[index] == .tab { index += 1 }
            let valueStart = index
            // Eight bytes at a time while every one is visible ASCII or SP (0x20-0x7E): subtracting 0x20 sets the high
            // bit of a byte below 0x20 (and of 0xFF), adding 1 that of a byte from 0x7F to 0xFE. Borrows and carries
            // start only at such bytes, so a word with no high bit set in either holds none.
            while index + 8 <= count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let flagged = (word &- 0x2020_2020_2020_2020) | (word &+ 0x0101_0101_0101_0101)
                if flagged & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
            while index < count {
                let byte = bytes[index]
                // One comparison for the common case, visible ASCII and SP (0x20-0x7E).
                if byte &- 0x20 >= 0x5F {
                    if byte == .cr { break }
                    if byte >= 0x80 {
                        fields.plain = false
                    } else if byte != .tab {
                        return .unframeable
                    }
                }
                index += 1
            }
            guard index + 1 < count else { return incomplete(count) }
            guard bytes[index + 1] == .lf else { return .unframeable }
            let value = valueStart..<index
            // Trailing whitespace is not part of a value (RFC 9110 §5.5); a value with some is left to NIO's reading.
            if let last = value.last, bytes[last] == .space || bytes[last] == .tab { fields.plain = false }
            index += 2
            fieldCount += 1
            if fieldCount > limits.maxFields || index > limits.maxHeadBytes { return .headTooLarge }
            classify(name: name, value: value, in: bytes, into: &fields)
        }
        if index > limits.maxHeadBytes { return .headTooLarge }

        let body: BodyFraming
        if fields.transferEncoding || fields.upgrade || fields.contentLengthCount > 1 || fields.contentLengthInvalid
            || Self.equals(bytes, method, "CONNECT")
        {
            body = .unknown
        } else if let length = fields.contentLength, length > 0 {
            body = .length(length)
        } else {
            body = .none
        }
        let isGet = Self.equals(bytes, method, "GET")
        guard isHTTP11, isGet || Self.equals(bytes, method, "HEAD"), targetIsPlain, fields.plain,
            fields.contentLengthCount == 0, body == .none, fields.hostCount == 1, fields.authorizationCount <= 1,
            checkedDigest != nil || Self.startsWithBundlePrefix(bytes, target)
        else {
            return .head(length: index, body: body, bundle: nil)
        }
        let bundleTarget: BundleRequestTarget
        if let checkedDigest {
            // Past the digest: nothing, or `?` and the query.
            let queryStart = targetStart + Self.digestTargetLength + 1
            bundleTarget = BundleRequestTarget(
                checkedDigest: checkedDigest,
                query: queryStart <= target.upperBound ? Substring(Self.string(bytes, queryStart..<target.upperBound)) : nil)
        } else {
            guard let parsed = BundleRequestTarget(uri: Self.string(bytes, target)) else {
                return .head(length: index, body: body, bundle: nil)
            }
            bundleTarget = parsed
        }
        var conditions: RequestConditions?
        var plainRange: ByteRange?
        if let first = fields.firstConditionLine {
            // The commonest conditional GET of all, one `Range: bytes=a-b`, is read here without building anything.
            if isGet, fields.moreConditionLines.isEmpty, first.name.count == 5, let range = Self.plainRange(bytes, first.value) {
                plainRange = range
            } else {
                var found = RequestConditions(method: isGet ? .get : .head)
                for (name, value) in [first] + fields.moreConditionLines {
                    found.add(name: Self.string(bytes, name), value: Self.string(bytes, value))
                }
                conditions = found
            }
        }
        let request = RecognizedBundleRequest(
            isHead: !isGet, target: bundleTarget, keepAlive: fields.keepAlive,
            bearerToken: fields.authorization.flatMap { value in
                BearerCredential.tokenRange(in: UnsafeRawBufferPointer(rebasing: bytes[value])).map {
                    Self.string(
                        bytes, value.lowerBound + $0.lowerBound..<value.lowerBound + $0.upperBound, reusing: previousToken)
                }
            },
            conditions: conditions, plainRange: plainRange,
            requestId: fields.requestId.flatMap { RequestId.accepted(Self.string(bytes, $0)) })
        return .head(length: index, body: .none, bundle: request)
    }

    /// The length of a target that is the bundle prefix and a digest's 64 hex digits.
    private static let digestTargetLength = BundleRequestTarget.prefix.utf8.count + BundleDigest.hexCount
    /// "HTTP/1.1" and "HTTP/1.0" as little-endian words.
    private static let http11Word = word("HTTP/1.1")
    private static let http10Word = word("HTTP/1.0")

    private static func word(_ text: StaticString) -> UInt64 {
        UnsafeRawBufferPointer(start: text.utf8Start, count: 8).loadUnaligned(as: UInt64.self).littleEndian
    }

    /// The digest of a target at `start` that is the bundle prefix and 64 lowercase hex digits followed by SP or `?`;
    /// nil for any other target (read byte by byte then), or when such a target would already break the limit.
    private static func digestTarget(_ bytes: UnsafeRawBufferPointer, at start: Int, maxTargetBytes: Int) -> BundleDigest? {
        let end = start + digestTargetLength
        guard end < bytes.count, digestTargetLength <= maxTargetBytes, bytes[end] == .space || bytes[end] == .question,
            startsWithBundlePrefix(bytes, start..<end)
        else { return nil }
        return BundleDigest(lowercaseHex: UnsafeRawBufferPointer(rebasing: bytes[start + bundlePrefix.count..<end]))
    }

    /// `needMore`, unless the bytes so far already fill the head's limit.
    private func incomplete(_ count: Int) -> Outcome {
        count >= limits.maxHeadBytes ? .headTooLarge : .needMore
    }

    /// What the field lines of a head say about its framing and its answer.
    private struct FieldFacts {
        var plain = true
        var hostCount = 0
        var authorizationCount = 0
        var authorization: Range<Int>?
        var contentLengthCount = 0
        var contentLength: Int?
        var contentLengthInvalid = false
        var transferEncoding = false
        var upgrade = false
        var keepAlive = true
        var connectionCount = 0
        var requestId: Range<Int>?
        /// The first conditional or range field line, and any after it (kept apart: most requests have none or one).
        var firstConditionLine: (name: Range<Int>, value: Range<Int>)?
        var moreConditionLines: [(name: Range<Int>, value: Range<Int>)] = []

        mutating func addConditionLine(_ name: Range<Int>, _ value: Range<Int>) {
            if firstConditionLine == nil {
                firstConditionLine = (name, value)
            } else {
                moreConditionLines.append((name, value))
            }
        }
    }

    /// Notes a field line that matters: framing fields, `Host`, `Authorization`, `Connection`, the conditional and
    /// range fields; a field that would change a bundle's answer otherwise (`Expect`, the edge secret) makes the
    /// request one for the full path.
    private func classify(name: Range<Int>, value: Range<Int>, in bytes: UnsafeRawBufferPointer, into facts: inout FieldFacts) {
        switch name.count {
        case 4:
            if Self.equalsLowercase(bytes, name, "host") { facts.hostCount += 1 }
        case 5:
            if Self.equalsLowercase(bytes, name, "range") { facts.addConditionLine(name, value) }
        case 6:
            if Self.equalsLowercase(bytes, name, "expect") { facts.plain = false }
        case 7:
            if Self.equalsLowercase(bytes, name, "upgrade") { facts.upgrade = true }
        case 8:
            if Self.equalsLowercase(bytes, name, "if-match") || Self.equalsLowercase(bytes, name, "if-range") {
                facts.addConditionLine(name, value)
            }
        case 10:
            if Self.equalsLowercase(bytes, name, "connection") {
                facts.connectionCount += 1
                if facts.connectionCount > 1 {
                    facts.plain = false
                } else if Self.equalsLowercase(bytes, value, "close") {
                    facts.keepAlive = false
                } else if !Self.equalsLowercase(bytes, value, "keep-alive") {
                    facts.plain = false
                }
            }
        case 12:
            // The first one names the request, as the routed path reads it.
            if facts.requestId == nil, Self.equalsLowercase(bytes, name, "x-request-id") { facts.requestId = value }
        case 13:
            if Self.equalsLowercase(bytes, name, "authorization") {
                facts.authorizationCount += 1
                facts.authorization = value
            } else if Self.equalsLowercase(bytes, name, "if-none-match") {
                facts.addConditionLine(name, value)
            }
        case 14:
            if Self.equalsLowercase(bytes, name, "content-length") {
                facts.contentLengthCount += 1
                facts.contentLength = Self.decimal(bytes, value)
                if facts.contentLength == nil { facts.contentLengthInvalid = true }
            }
        case 17:
            if Self.equalsLowercase(bytes, name, "transfer-encoding") {
                facts.transferEncoding = true
            } else if Self.equalsLowercase(bytes, name, "if-modified-since") {
                facts.addConditionLine(name, value)
            }
        case 19:
            if Self.equalsLowercase(bytes, name, "if-unmodified-since") { facts.addConditionLine(name, value) }
        default:
            break
        }
        if let edge = edgeSecretField, name.count == edge.count, Self.equalsLowercase(bytes, name, edge) {
            facts.plain = false
        }
    }

    // MARK: bytes

    /// RFC 9110 §5.6.2 `tchar`: ALPHA, DIGIT and ``!#$%&'*+-.^_`|~``, as a bit set over the 128 ASCII bytes.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        isIn(byte, low: 0x03FF_6CFA_0000_0000, high: 0x57FF_FFFF_C7FF_FFFE)
    }

    /// The bytes of an origin-form target in RFC 3986's `pchar`, `/` and `?` (unreserved, sub-delims, `:`, `@`,
    /// `%`): every decoder reads them alike. Others (`#`, quotes, braces, non-ASCII) send the request to the full path.
    static func isPlainTargetByte(_ byte: UInt8) -> Bool {
        isIn(byte, low: 0xAFFF_FFF2_0000_0000, high: 0x47FF_FFFE_87FF_FFFF)
    }

    /// Whether `byte` is in the set whose bits for bytes 0-63 are `low` and for 64-127 are `high`.
    private static func isIn(_ byte: UInt8, low: UInt64, high: UInt64) -> Bool {
        if byte < 64 { return low >> UInt64(byte) & 1 == 1 }
        if byte < 128 { return high >> UInt64(byte - 64) & 1 == 1 }
        return false
    }

    private static func equals(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let other = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        for offset in 0..<range.count where bytes[range.lowerBound + offset] != other[offset] { return false }
        return true
    }

    private static func equalsLowercase(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let other = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        for offset in 0..<range.count where lowercased(bytes[range.lowerBound + offset]) != other[offset] { return false }
        return true
    }

    private static func equalsLowercase(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ text: [UInt8]) -> Bool {
        guard range.count == text.count else { return false }
        for offset in 0..<range.count where lowercased(bytes[range.lowerBound + offset]) != text[offset] { return false }
        return true
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Whether the bytes in `range` start with `/v1/bundles/`: two loads and two comparisons.
    private static func startsWithBundlePrefix(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        guard range.count >= 12 else { return false }
        return bytes.loadUnaligned(fromByteOffset: range.lowerBound, as: UInt64.self) == bundlePrefixWords.0
            && bytes.loadUnaligned(fromByteOffset: range.lowerBound + 8, as: UInt32.self) == bundlePrefixWords.1
    }

    /// The bundle prefix's 12 bytes as they lie in memory: eight, then four.
    private static let bundlePrefixWords: (UInt64, UInt32) = bundlePrefix.withUnsafeBytes {
        ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    }

    /// A `Content-Length` value: 1-18 digits (RFC 9110 §8.6), else nil.
    private static func decimal(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        guard (1...18).contains(range.count) else { return nil }
        var value = 0
        for index in range {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    /// A `Range` value of the one form `bytes=first-last` (lowercase unit, 1-18 digits each, first ≤ last), as the
    /// range it asks for; nil for any other value, which `RequestConditions` then reads.
    private static func plainRange(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) -> ByteRange? {
        let unit: StaticString = "bytes="
        guard value.count > unit.utf8CodeUnitCount + 2, equals(bytes, value.prefix(unit.utf8CodeUnitCount), unit) else {
            return nil
        }
        let numbers = value.dropFirst(unit.utf8CodeUnitCount)
        guard let hyphen = numbers.first(where: { bytes[$0] == UInt8(ascii: "-") }),
            let first = decimal(bytes, numbers.lowerBound..<hyphen), let last = decimal(bytes, hyphen + 1..<numbers.upperBound),
            first <= last
        else { return nil }
        return ByteRange(first: Int64(first), last: Int64(last))
    }

    /// The bytes in `range` as a string: `previous` when it has the same bytes, else a new one.
    private static func string(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, reusing previous: String?) -> String {
        if var previous, previous.utf8.count == range.count {
            let same = previous.withUTF8 { kept in
                memcmp(kept.baseAddress!, bytes.baseAddress! + range.lowerBound, range.count) == 0
            }
            if same { return previous }
        }
        return string(bytes, range)
    }

    private static func string(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}

extension UInt8 {
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let cr = UInt8(ascii: "\r")
    fileprivate static let lf = UInt8(ascii: "\n")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let question = UInt8(ascii: "?")
}
