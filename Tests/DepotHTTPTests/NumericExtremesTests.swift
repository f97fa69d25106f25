import DepotHTTP
import DepotTestSupport
import Testing

/// Every number the HTTP field parsers read from a request (Range positions and suffix lengths; the day,
/// year and time of an HTTP-date in If-Range, If-Modified-Since and If-Unmodified-Since) walked through the
/// extremes and their spellings (`ExtremeNumbers`), against representations from empty to `Int64.max`
/// bytes and clocks from `Int64.min` to `Int64.max`: each is read as RFC 9110 says (digits only, saturated
/// at `Int64.max`) or refused as malformed, and every plan stays within the representation. A trap would
/// end the test run.
@Suite("HTTP fields: numbers at their extremes")
struct NumericExtremesTests {
    static let sizes: [Int64] = [0, 1, 100, Int64(Int32.max), Int64.max]

    /// Range templates: `X` is replaced by each spelling.
    static let rangeTemplates = ["bytes=X-", "bytes=-X", "bytes=0-X", "bytes=X-X", "bytes=1-X", "bytes=X-5,0-0", "bytes=0-0,X-"]

    /// The range-specs a template and spelling must parse to, by the grammar of RFC 9110 §14.1.1 read with
    /// positions saturated at `Int64.max`; nil when the field is malformed.
    static func expectedSpecs(_ template: String, _ spelling: String) -> [RangeSpecifier]? {
        guard let number = ExtremeNumbers.saturatingDigits(spelling) else { return nil }
        switch template {
        case "bytes=X-": return [.from(first: number)]
        case "bytes=-X": return [.suffix(length: number)]
        case "bytes=0-X": return [.closed(first: 0, last: number)]
        case "bytes=X-X": return [.closed(first: number, last: number)]
        case "bytes=1-X": return number >= 1 ? [.closed(first: 1, last: number)] : nil
        case "bytes=X-5,0-0": return number <= 5 ? [.closed(first: number, last: 5), .closed(first: 0, last: 0)] : nil
        default: return [.closed(first: 0, last: 0), .from(first: number)]
        }
    }

    @Test(arguments: rangeTemplates)
    func rangePositionsAreSaturatedOrRefused(template: String) {
        for spelling in ExtremeNumbers.spellings {
            let value = template.split(separator: "X", omittingEmptySubsequences: false).joined(separator: spelling)
            let parsed = RangeField.parse(value, maxRanges: 16)
            if let specs = Self.expectedSpecs(template, spelling) {
                #expect(parsed == .bytes(specs), "\(value)")
            } else {
                #expect(parsed == .malformed, "\(value)")
            }
            for size in Self.sizes {
                checkPlan([field("Range", value)], size: size, now: exampleNow, label: value)
            }
        }
    }

    /// Each range-spec resolved against each size gives ranges inside the representation, or nothing.
    @Test func resolvedRangesStayInsideTheRepresentation() {
        let positions: [Int64] = [0, 1, 5, Int64(Int32.max), Int64(UInt32.max), Int64.max - 1, Int64.max]
        var specs: [RangeSpecifier] = positions.flatMap { [.from(first: $0), .suffix(length: $0)] }
        for first in positions { for last in positions where last >= first { specs.append(.closed(first: first, last: last)) } }
        for size in Self.sizes {
            for spec in specs {
                for set in [[spec], [spec, spec], [.closed(first: 0, last: 0), spec]] {
                    switch ByteRangeSet.resolve(set, size: size) {
                    case .satisfiable(let resolved):
                        var total: Int64 = 0
                        for range in resolved.ranges {
                            #expect(range.first >= 0 && range.first <= range.last && range.last < size, "\(set) of \(size)")
                            total += range.length
                        }
                        #expect(total <= size, "\(set) of \(size)")
                    case .unsatisfiable, .excessive:
                        break
                    }
                }
            }
        }
    }

    /// The numeric parts of an HTTP-date at their extremes: each date is read exactly or ignored.
    @Test func dateFieldsAtTheExtremesAreReadOrIgnored() {
        var dates = [
            "Thu, 01 Jan 1970 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Wed, 31 Dec 1969 23:59:59 GMT",
            "Sat, 01 Jan 10000 00:00:00 GMT", "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 99 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 99:99:99 GMT", "Sun, 06 Nov 0000 08:49:37 GMT", "Thursday, 01-Jan-70 00:00:00 GMT",
            "Friday, 31-Dec-99 23:59:59 GMT", "Thu Jan  1 00:00:00 1970", "Fri Dec 31 23:59:59 9999",
        ]
        for spelling in ExtremeNumbers.spellings {
            dates += [
                "Sun, 06 Nov \(spelling) 08:49:37 GMT", "Sun, \(spelling) Nov 1994 08:49:37 GMT",
                "Sun, 06 Nov 1994 \(spelling):49:37 GMT", "Sunday, 06-Nov-\(spelling) 08:49:37 GMT",
                "Sun Nov  6 08:49:37 \(spelling)",
            ]
        }
        let clocks: [Int64] = [Int64.min, -1, 0, exampleNow, HTTPDate.latest, Int64.max]
        for date in dates {
            for now in clocks {
                if let seconds = HTTPDate.parse(date, now: now) {
                    #expect(seconds >= 0 && seconds <= HTTPDate.latest, "\(date)")
                    #expect(HTTPDate.parse(HTTPDate.format(seconds)) == seconds, "\(date)")
                }
                for name in ["If-Modified-Since", "If-Unmodified-Since"] {
                    checkPlan([field(name, date)], size: 100, now: now, label: "\(name): \(date)")
                }
                checkPlan([field("Range", "bytes=0-0"), field("If-Range", date)], size: 100, now: now, label: date)
            }
        }
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == HTTPDate.latest)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.parse("Wed, 31 Dec 1969 23:59:59 GMT") == nil)
    }

    /// Representations whose own numbers are extreme (size, Last-Modified) under every clock.
    @Test func extremeRepresentationsAndClocksPlanWithinBounds() {
        let moments: [Int64] = [Int64.min, -1, 0, exampleDate, HTTPDate.latest, Int64.max]
        let requests: [[HeaderField]] = [
            [], [field("Range", "bytes=0-")], [field("Range", "bytes=-1")], [field("Range", "bytes=0-0,2-")],
            [field("If-Modified-Since", exampleIMF)], [field("If-Unmodified-Since", exampleIMF)],
            [field("Range", "bytes=0-0"), field("If-Range", exampleIMF)],
        ]
        for size in Self.sizes {
            for lastModified in moments {
                for now in moments {
                    for headers in requests {
                        checkPlan(headers, size: size, lastModified: lastModified, now: now, label: "\(headers)")
                    }
                }
            }
        }
    }

    /// Plans `headers` and checks what every plan must be: a status the evaluator may give, and a body and
    /// Content-Length that stay inside the representation.
    private func checkPlan(
        _ headers: [HeaderField], size: Int64, lastModified: Int64 = exampleDate, now: Int64, label: String
    ) {
        let answer = plan(headers, representation: representation(size: size, lastModified: lastModified), now: now)
        let context = "\(label), size \(size), now \(now)"
        #expect([200, 206, 304, 412, 416].contains(answer.status), "\(context)")
        #expect(answer.contentLength >= 0, "\(context)")
        switch answer.body {
        case .none:
            #expect(answer.contentLength == 0, "\(context)")
        case .file(let offset, let length):
            #expect(offset >= 0 && length >= 0 && length <= size - offset, "\(context)")
            #expect(answer.contentLength == length, "\(context)")
        case .segments(let segments):
            for case .file(let offset, let length) in segments {
                #expect(offset >= 0 && length > 0 && length <= size - offset, "\(context)")
            }
        }
    }
}
