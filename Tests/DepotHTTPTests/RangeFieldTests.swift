import DepotHTTP
import Testing

@Suite("Range field parsing (RFC 9110 §14.1, §14.2)")
struct RangeFieldTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var value: String
        var expected: RangeField
        var testDescription: String { "[\(value)]" }
    }

    @Test(
        "well-formed byte ranges",
        arguments: [
            Case(value: "bytes=0-0", expected: .bytes([.closed(first: 0, last: 0)])),
            Case(value: "bytes=0-499", expected: .bytes([.closed(first: 0, last: 499)])),
            Case(value: "bytes=500-", expected: .bytes([.from(first: 500)])),
            Case(value: "bytes=-500", expected: .bytes([.suffix(length: 500)])),
            Case(value: "bytes=-0", expected: .bytes([.suffix(length: 0)])),
            Case(value: "Bytes=0-1", expected: .bytes([.closed(first: 0, last: 1)])),
            Case(value: "BYTES=0-1", expected: .bytes([.closed(first: 0, last: 1)])),
            Case(value: " bytes=0-1 ", expected: .bytes([.closed(first: 0, last: 1)])),
            Case(value: "bytes=0-1 , 4-5", expected: .bytes([.closed(first: 0, last: 1), .closed(first: 4, last: 5)])),
            Case(value: "bytes=0-1,\t4-5", expected: .bytes([.closed(first: 0, last: 1), .closed(first: 4, last: 5)])),
            Case(value: "bytes=0-1,,4-5,", expected: .bytes([.closed(first: 0, last: 1), .closed(first: 4, last: 5)])),
            Case(value: "bytes=,0-1", expected: .bytes([.closed(first: 0, last: 1)])),
            Case(value: "bytes=0007-0009", expected: .bytes([.closed(first: 7, last: 9)])),
            Case(value: "bytes=0-99999999999999999999999", expected: .bytes([.closed(first: 0, last: .max)])),
            Case(value: "bytes=99999999999999999999-", expected: .bytes([.from(first: .max)])),
            Case(value: "bytes=-99999999999999999999", expected: .bytes([.suffix(length: .max)])),
            Case(value: "bytes=9223372036854775807-", expected: .bytes([.from(first: .max)])),
            Case(value: "bytes=5-1,0-1", expected: .malformed),  // one invalid spec spoils the set
        ])
    func parses(_ row: Case) {
        #expect(RangeField.parse(row.value, maxRanges: 16) == row.expected)
    }

    @Test(
        "malformed values are reported as such",
        arguments: [
            "", "bytes", "bytes=", "bytes=,", "bytes= ,", "=0-1", "bytes= 0-1", "bytes =0-1", "bytes\t=0-1",
            "bytes=1-0", "bytes=+1-2", "bytes=1-+2", "bytes=1 -2", "bytes=1- 2", "bytes=1 2-3", "bytes=0x1-2",
            "bytes=-", "bytes=--1", "bytes=1-2-3", "bytes=a-b", "bytes=1", "bytes=١-٢", "bytes=0-1;x",
            "bytes=0-1 4-5", "by tes=0-1", "bytés=0-1", "bytes=0-1\u{0}",
        ])
    func malformed(_ value: String) {
        #expect(RangeField.parse(value, maxRanges: 16) == .malformed)
    }

    @Test("an unknown unit is recognised and ignored", arguments: ["items=0-1", "none=0-1", "bytesx=0-1"])
    func unknownUnit(_ value: String) {
        #expect(RangeField.parse(value, maxRanges: 16) == .unsupportedUnit)
    }

    @Test("more than maxRanges specs", arguments: [(16, false), (17, true)])
    func tooMany(_ count: Int, _ refused: Bool) {
        let value = "bytes=" + (0..<count).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
        let parsed = RangeField.parse(value, maxRanges: 16)
        if refused {
            #expect(parsed == .tooManyRanges)
        } else {
            guard case .bytes(let specs) = parsed else {
                Issue.record("expected ranges, got \(parsed)")
                return
            }
            #expect(specs.count == count)
        }
    }
}
