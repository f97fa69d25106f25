import DepotHTTP
import DepotTestSupport
import Testing

/// Hostile and random field values: no trap, and every plan stays within its invariants.
@Suite("Hostile input")
struct FuzzTests {
    static let names = [
        "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range", "Range", "range",
        "IF-RANGE", "X-Other",
    ]
    static let fragments = [
        "bytes=", "Bytes=", "items=", "=", "0", "1", "9", "42", "99", "100", "-", "--", ",", ", ", " ", "\t", "\"",
        "\"abc123\"", "W/", "W/\"abc123\"", "*", "é", "😀", "\u{0}", "\u{7F}", "\r\n", "+", "99999999999999999999999",
        "9223372036854775807", "9223372036854775808", exampleIMF, "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994", "GMT", "Feb", "30", "24:00:00", ";", "x", "١",
    ]
    static let sizes: [Int64] = [0, 1, 2, 7, 100, 4096, Int64.max - 1, Int64.max]

    static func randomValue(_ random: inout SeededBytes) -> String {
        switch Int.random(in: 0..<20, using: &random) {
        case 0:
            return String(repeating: ",", count: Int.random(in: 1...5000, using: &random))
        case 1:
            return "bytes=" + String(repeating: "0-0,", count: Int.random(in: 1...3000, using: &random))
        case 2:
            return String(repeating: "W/\"a\",", count: Int.random(in: 1...2000, using: &random))
        case 3:
            let scalars = (0..<Int.random(in: 0...64, using: &random)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0...0x1_0000, using: &random))
            }
            return String(String.UnicodeScalarView(scalars))
        default:
            let count = Int.random(in: 0...12, using: &random)
            return (0..<count).map { _ in fragments.randomElement(using: &random)! }.joined()
        }
    }

    @Test("random requests never trap and plans stay valid")
    func randomRequests() {
        var random = SeededBytes(seed: 0xDEB0)
        let methods: [RequestMethod] = [.get, .get, .head, .other]
        for _ in 0..<4000 {
            let headers = (0..<Int.random(in: 0...5, using: &random)).map { _ in
                field(Self.names.randomElement(using: &random)!, Self.randomValue(&random))
            }
            let size = Self.sizes.randomElement(using: &random)!
            let method = methods.randomElement(using: &random)!
            let now = Int64.random(in: -10...HTTPDate.latest + 10, using: &random)
            let result = plan(
                headers, method: method, representation: representation(size: size, lastModified: exampleDate),
                now: now,
                limits: RangeLimits(maxRanges: Int.random(in: 0...20, using: &random)))
            Self.check(result, size: size, method: method, headers: headers)
        }
    }

    static func check(_ result: ResponsePlan, size: Int64, method: RequestMethod, headers: [HeaderField]) {
        #expect([200, 206, 304, 412, 416].contains(result.status), "\(headers)")
        switch result.status {
        case 200:
            #expect(result.body == .file(offset: 0, length: size))
            #expect(result.contentLength == size)
        case 206:
            #expect(method == .get)
            var total: Int64 = 0
            let parts: [BodySegment] =
                switch result.body {
                case .file(let offset, let length): [.file(offset: offset, length: length)]
                case .segments(let segments): segments
                case .none: []
                }
            #expect(!parts.isEmpty)
            for part in parts {
                switch part {
                case .file(let offset, let length):
                    #expect(offset >= 0 && length > 0 && offset < size && length <= size - offset, "\(headers)")
                    total += length
                case .literal(let bytes):
                    total += Int64(bytes.count)
                }
            }
            #expect(total == result.contentLength)
        default:
            #expect(result.body == .none)
            #expect(result.contentLength == 0)
        }
    }

    @Test("the parsers accept any string")
    func parsers() {
        var random = SeededBytes(seed: 0x5EED)
        for _ in 0..<3000 {
            let value = Self.randomValue(&random)
            _ = HTTPDate.parse(value)
            _ = HTTPDate.parse(value, now: Int64.random(in: .min ... .max, using: &random))
            _ = EntityTag(parsing: value)
            _ = EntityTagList(fieldLines: [value, value])
            if case .bytes(let specs) = RangeField.parse(value, maxRanges: 64) {
                let size = Self.sizes.randomElement(using: &random)!
                if case .satisfiable(let set) = ByteRangeSet.resolve(specs, size: size) {
                    for range in set.ranges {
                        #expect(range.first >= 0 && range.first <= range.last && range.last < size)
                    }
                }
            }
        }
    }

    @Test("extreme representation values never trap")
    func extremes() {
        for size in [Int64.min, -1, 0, Int64.max] {
            for modified in [Int64.min, -1, 0, Int64.max] {
                for now in [Int64.min, 0, Int64.max] {
                    let rep = RepresentationMetadata(
                        size: size, entityTag: "", lastModified: modified, contentType: "", cacheControl: nil)
                    for headers in [
                        [field("Range", "bytes=0-0,-1")], [field("If-Range", exampleIMF), field("Range", "bytes=-5")],
                        [field("If-Modified-Since", exampleIMF)], [field("If-Unmodified-Since", exampleIMF)],
                        [field("If-None-Match", "\"\"")],
                    ] {
                        let result = plan(headers, representation: rep, now: now)
                        #expect([200, 206, 304, 412, 416].contains(result.status))
                    }
                }
            }
        }
    }
}
