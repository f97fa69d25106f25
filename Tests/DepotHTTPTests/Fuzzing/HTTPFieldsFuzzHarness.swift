// Shared by the test target and by the libFuzzer build of `Fuzz/run.sh`, which compiles this file into one
// module with DepotHTTP's sources (hence no import there).
#if !DEPOT_FUZZ_SINGLE_MODULE
import DepotHTTP
#endif

/// Turns arbitrary bytes into a bundle request's conditional and range fields, plans the answer, and lists
/// every broken invariant (an empty list: the input is handled correctly).
///
/// Input layout: byte 0 picks the method, byte 1 the range limit, bytes 2-9 the representation's size (any
/// Int64 from 0: a file's size), bytes 10-17 "now"; the rest is header lines separated by `\n`, the first
/// byte of each picking the field name.
enum HTTPFieldsFuzzHarness {
    static let names = [
        "Range", "If-Range", "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "range",
        "X-Other",
    ]

    /// The invariants broken for `data`, described.
    static func violations(_ data: [UInt8]) -> [String] {
        var reader = ByteReader(bytes: data)
        let method: RequestMethod = [.get, .head, .other][Int(reader.byte()) % 3]
        let maxRanges = Int(reader.byte() % 70)
        let size = reader.int64() & Int64.max
        let now = reader.int64()
        let headers = reader.rest().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
            line -> (name: String, value: String) in
            let name = names[Int(line.first ?? 0) % names.count]
            return (name, String(decoding: line.dropFirst(), as: UTF8.self))
        }
        var found: [String] = []
        found += planViolations(method: method, maxRanges: maxRanges, size: size, now: now, headers: headers)
        for (_, value) in headers { found += parserViolations(value, size: size, now: now) }
        return found
    }

    /// The plan for the request keeps to its status and body rules.
    static func planViolations(
        method: RequestMethod, maxRanges: Int, size: Int64, now: Int64, headers: [(name: String, value: String)]
    ) -> [String] {
        let representation = RepresentationMetadata(
            size: size, entityTag: "abc123", lastModified: 784_111_777, contentType: "application/zip",
            cacheControl: "public, max-age=31536000, immutable")
        let plan = ConditionalEvaluator.plan(
            for: RequestConditions(method: method, headers: headers), representation: representation, now: now,
            limits: RangeLimits(maxRanges: maxRanges), boundary: "BOUNDARY")
        var found: [String] = []
        guard [200, 206, 304, 412, 416].contains(plan.status) else { return ["status \(plan.status)"] }
        switch plan.status {
        case 200:
            if plan.body != .file(offset: 0, length: size) || plan.contentLength != size {
                found.append("200 with body \(plan.body) for size \(size)")
            }
        case 206:
            if method != .get { found.append("206 for a method other than GET") }
            let parts: [BodySegment] =
                switch plan.body {
                case .file(let offset, let length): [.file(offset: offset, length: length)]
                case .segments(let segments): segments
                case .none: []
                }
            if parts.isEmpty { found.append("206 without a body") }
            var total: Int64 = 0
            for part in parts {
                switch part {
                case .file(let offset, let length):
                    if !(offset >= 0 && length > 0 && offset < size && length <= size - offset) {
                        found.append("206 part \(offset)+\(length) outside size \(size)")
                    }
                    total = total.addingReportingOverflow(length).partialValue
                case .literal(let bytes):
                    total = total.addingReportingOverflow(Int64(bytes.count)).partialValue
                }
            }
            if total != plan.contentLength { found.append("206 Content-Length \(plan.contentLength) for \(total) bytes") }
        default:
            if plan.body != .none || plan.contentLength != 0 { found.append("\(plan.status) with a body") }
        }
        return found
    }

    /// Each field parser takes any value; what it accepts is consistent.
    static func parserViolations(_ value: String, size: Int64, now: Int64) -> [String] {
        var found: [String] = []
        if let date = HTTPDate.parse(value), HTTPDate.parse(HTTPDate.format(date)) != date,
            (0...HTTPDate.latest).contains(date)
        {
            found.append("date \(date) does not survive formatting")
        }
        _ = HTTPDate.parse(value, now: now)
        if let tag = EntityTag(parsing: value), EntityTag(parsing: tag.fieldValue) != tag {
            found.append("entity tag \(tag) does not survive formatting")
        }
        _ = EntityTagList(fieldLines: [value, value])
        if case .bytes(let specs) = RangeField.parse(value, maxRanges: 64),
            case .satisfiable(let set) = ByteRangeSet.resolve(specs, size: size)
        {
            for range in set.ranges where !(range.first >= 0 && range.first <= range.last && range.last < size) {
                found.append("range \(range.first)-\(range.last) outside size \(size)")
            }
        }
        return found
    }

    /// Reads fixed-size numbers from the front of the input, zeros once it runs out.
    struct ByteReader {
        let bytes: [UInt8]
        var position = 0

        mutating func byte() -> UInt8 {
            defer { position += 1 }
            return position < bytes.count ? bytes[position] : 0
        }

        mutating func int64() -> Int64 {
            var value: UInt64 = 0
            for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
            return Int64(bitPattern: value)
        }

        func rest() -> ArraySlice<UInt8> { position < bytes.count ? bytes[position...] : [] }
    }
}
