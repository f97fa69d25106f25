import DepotHTTP
import DepotTestSupport
import Testing

@Suite("HTTP-date (RFC 9110 §5.6.7)")
struct HTTPDateTests {
    struct Known: Sendable, CustomTestStringConvertible {
        var seconds: Int64
        var imf: String
        var testDescription: String { imf }
    }

    static let known: [Known] = [
        Known(seconds: 0, imf: "Thu, 01 Jan 1970 00:00:00 GMT"),
        Known(seconds: exampleDate, imf: exampleIMF),
        Known(seconds: 951_782_400, imf: "Tue, 29 Feb 2000 00:00:00 GMT"),
        Known(seconds: 1_709_208_000, imf: "Thu, 29 Feb 2024 12:00:00 GMT"),
        Known(seconds: 2_147_483_648, imf: "Tue, 19 Jan 2038 03:14:08 GMT"),
        Known(seconds: 253_402_300_799, imf: "Fri, 31 Dec 9999 23:59:59 GMT"),
    ]

    @Test("format writes IMF-fixdate", arguments: known)
    func formats(_ row: Known) {
        #expect(HTTPDate.format(row.seconds) == row.imf)
    }

    @Test("parse reads IMF-fixdate", arguments: known)
    func parsesIMF(_ row: Known) {
        #expect(HTTPDate.parse(row.imf) == row.seconds)
    }

    @Test("format clamps values outside 1970...9999 instead of trapping")
    func formatClamps() {
        #expect(HTTPDate.format(-1) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(.min) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(.max) == "Fri, 31 Dec 9999 23:59:59 GMT")
    }

    struct Accepted: Sendable, CustomTestStringConvertible {
        var value: String
        var now: Int64?
        var seconds: Int64
        var testDescription: String { value }
    }

    @Test(
        "parse accepts the three formats",
        arguments: [
            Accepted(value: exampleIMF, now: nil, seconds: exampleDate),
            Accepted(value: "Sunday, 06-Nov-94 08:49:37 GMT", now: nil, seconds: exampleDate),
            Accepted(value: "Sunday, 06-Nov-94 08:49:37 GMT", now: 1_748_736_000, seconds: exampleDate),
            Accepted(value: "Sun Nov  6 08:49:37 1994", now: nil, seconds: exampleDate),
            Accepted(value: "Sun Nov 06 08:49:37 1994", now: nil, seconds: exampleDate),
            Accepted(value: " \t" + exampleIMF + " ", now: nil, seconds: exampleDate),
            // RFC 5322 allows second 60; it counts as the next minute's first second.
            Accepted(value: "Sat, 31 Dec 2016 23:59:60 GMT", now: nil, seconds: 1_483_228_800),
        ])
    func parsesFormats(_ row: Accepted) {
        #expect(HTTPDate.parse(row.value, now: row.now) == row.seconds)
    }

    @Test("parse reads Substrings")
    func parsesSubstring() {
        let text = "xx" + exampleIMF + "xx"
        #expect(HTTPDate.parse(text.dropFirst(2).dropLast(2)) == exampleDate)
    }

    @Test(
        "parse rejects invalid values",
        arguments: [
            "", "   ", "garbage", "0", "784111777",
            "Wed, 30 Feb 1994 08:49:37 GMT",  // February 30
            "Sun, 29 Feb 2100 00:00:00 GMT",  // 2100 is not a leap year
            "Sun, 06 Nov 1994 24:00:00 GMT",  // hour 24
            "Sun, 06 Nov 1994 08:60:37 GMT",  // minute 60
            "Sun, 06 Nov 1994 08:49:61 GMT",  // second 61
            "Sun, 32 Nov 1994 08:49:37 GMT",  // day 32
            "Sun, 00 Nov 1994 08:49:37 GMT",  // day 0
            "Mon, 06 Nov 1994 08:49:37 GMT",  // wrong weekday: rejected (documented on HTTPDate)
            "Monday, 06-Nov-94 08:49:37 GMT",  // wrong weekday, RFC 850
            "Mon Nov  6 08:49:37 1994",  // wrong weekday, asctime
            "sun, 06 nov 1994 08:49:37 gmt",  // HTTP-date is case-sensitive
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 08:49:37 +0000",
            "Sun, 6 Nov 1994 08:49:37 GMT",  // IMF-fixdate's day has two digits
            "Sun,  06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMTX",
            "Sun, 06 Nov 1994 08:49:37 GMT; x",
            "Sun, 06-Nov-94 08:49:37 GMT",  // RFC 850 needs the long day name
            "Sunday, 06 Nov 1994 08:49:37 GMT",
            "Sun Nov 6 08:49:37 1994",  // asctime's single-digit day needs a leading space
            "Wed, 31 Dec 1969 23:59:59 GMT",  // before 1970
            "Mon, 01 Jan 0001 00:00:00 GMT",
            "Sun, ０6 Nov 1994 08:49:37 GMT",  // a fullwidth digit
            "Sun, 06 Nov 1994 08:49:37 GMT\u{0}",
            "Sun, 06 Nov 1994 08:49:3٧ GMT",
        ])
    func rejectsInvalid(_ value: String) {
        #expect(HTTPDate.parse(value) == nil)
        #expect(HTTPDate.parse(value, now: exampleNow) == nil)
    }

    struct TwoDigitYear: Sendable, CustomTestStringConvertible {
        var value: String
        var now: Int64?
        var seconds: Int64?
        var testDescription: String { value + " now=\(now.map(String.init) ?? "nil")" }
    }

    static let june2025: Int64 = 1_748_736_000

    @Test(
        "RFC 850 two-digit years: more than 50 years ahead means the past century",
        arguments: [
            TwoDigitYear(value: "Tuesday, 01-Jan-30 00:00:00 GMT", now: june2025, seconds: 1_893_456_000),
            TwoDigitYear(value: "Tuesday, 01-Jan-80 00:00:00 GMT", now: june2025, seconds: 315_532_800),
            TwoDigitYear(value: "Tuesday, 01-Jan-69 00:00:00 GMT", now: nil, seconds: 3_124_224_000),
            TwoDigitYear(value: "Thursday, 01-Jan-70 00:00:00 GMT", now: nil, seconds: 0),
            // With now in 2025, "70" is 2070 (45 years ahead), a Wednesday: the Thursday is wrong.
            TwoDigitYear(value: "Thursday, 01-Jan-70 00:00:00 GMT", now: june2025, seconds: nil),
        ])
    func twoDigitYears(_ row: TwoDigitYear) {
        #expect(HTTPDate.parse(row.value, now: row.now) == row.seconds)
    }

    /// Rewrites an IMF-fixdate as RFC 850 ("Sunday, 06-Nov-94 ...") and asctime ("Sun Nov  6 ... 1994").
    static func otherForms(of imf: String) -> (rfc850: String, asctime: String) {
        let parts = imf.split(separator: " ")  // ["Sun,", "06", "Nov", "1994", "08:49:37", "GMT"]
        let longNames = [
            "Sun": "Sunday", "Mon": "Monday", "Tue": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday",
            "Fri": "Friday", "Sat": "Saturday",
        ]
        let short = String(parts[0].dropLast())
        let rfc850 = "\(longNames[short]!), \(parts[1])-\(parts[2])-\(parts[3].suffix(2)) \(parts[4]) GMT"
        let day = parts[1].hasPrefix("0") ? " " + parts[1].dropFirst() : String(parts[1])
        let asctime = "\(short) \(parts[2]) \(day) \(parts[4]) \(parts[3])"
        return (rfc850, asctime)
    }

    @Test("round trip through all three formats")
    func roundTrip() {
        var random = SeededBytes(seed: 7)
        var samples: [Int64] = [0, 59, 86_399, 86_400, exampleDate, 951_782_400, HTTPDate.latest]
        for _ in 0..<2000 { samples.append(Int64.random(in: 0...HTTPDate.latest, using: &random)) }
        for seconds in samples {
            let imf = HTTPDate.format(seconds)
            let forms = Self.otherForms(of: imf)
            #expect(HTTPDate.parse(imf) == seconds, "\(imf)")
            #expect(HTTPDate.parse(forms.rfc850, now: seconds) == seconds, "\(forms.rfc850)")
            #expect(HTTPDate.parse(forms.asctime) == seconds, "\(forms.asctime)")
        }
    }
}
