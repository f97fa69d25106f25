import DepotHTTP
import Testing

@Suite("Resolving ranges against a size (RFC 9110 §14.1.1, §14.6)")
struct ByteRangeSetTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var specs: [RangeSpecifier]
        var size: Int64 = 100
        /// nil: unsatisfiable.
        var expected: [ClosedRange<Int64>]?
        var testDescription: String { name }
    }

    @Test(
        "satisfiable, unsatisfiable, clipped, sorted and coalesced",
        arguments: [
            Case(name: "0-0 is one byte", specs: [.closed(first: 0, last: 0)], expected: [0...0]),
            Case(
                name: "last byte past the end is clipped", specs: [.closed(first: 50, last: 1000)], expected: [50...99]),
            Case(name: "huge last-pos", specs: [.closed(first: 0, last: .max)], expected: [0...99]),
            Case(name: "-0 is unsatisfiable", specs: [.suffix(length: 0)], expected: nil),
            Case(name: "first byte equal to size", specs: [.from(first: 100)], expected: nil),
            Case(name: "int-range starting at size", specs: [.closed(first: 100, last: 200)], expected: nil),
            Case(name: "suffix", specs: [.suffix(length: 10)], expected: [90...99]),
            Case(name: "suffix longer than size", specs: [.suffix(length: 1000)], expected: [0...99]),
            Case(name: "open range", specs: [.from(first: 10)], expected: [10...99]),
            Case(name: "empty representation, int-range", specs: [.closed(first: 0, last: 0)], size: 0, expected: nil),
            Case(name: "empty representation, suffix", specs: [.suffix(length: 5)], size: 0, expected: nil),
            Case(
                name: "overlapping ranges coalesce", specs: [.closed(first: 0, last: 10), .closed(first: 5, last: 20)],
                expected: [0...20]),
            Case(
                name: "adjacent ranges coalesce", specs: [.closed(first: 0, last: 9), .closed(first: 10, last: 19)],
                expected: [0...19]),
            Case(
                name: "one-byte gap stays", specs: [.closed(first: 0, last: 9), .closed(first: 11, last: 19)],
                expected: [0...9, 11...19]),
            Case(
                name: "sorted ascending", specs: [.closed(first: 50, last: 59), .closed(first: 0, last: 9)],
                expected: [0...9, 50...59]),
            Case(
                name: "unsatisfiable specs dropped",
                specs: [.closed(first: 200, last: 300), .closed(first: 0, last: 0)],
                expected: [0...0]),
            Case(
                name: "halves add up to the size", specs: [.closed(first: 50, last: 99), .closed(first: 0, last: 49)],
                expected: [0...99]),
        ])
    func resolves(_ row: Case) {
        let resolution = ByteRangeSet.resolve(row.specs, size: row.size)
        if let expected = row.expected {
            let ranges = expected.map { ByteRange(first: $0.lowerBound, last: $0.upperBound) }
            #expect(resolution == .satisfiable(ByteRangeSet(coalescing: ranges)))
            if case .satisfiable(let set) = resolution { #expect(set.ranges == ranges) }
        } else {
            #expect(resolution == .unsatisfiable)
        }
    }

    @Test(
        "ranges adding up to more than the representation are refused",
        arguments: [
            [RangeSpecifier.from(first: 0), .from(first: 0)],
            [.closed(first: 0, last: 60), .closed(first: 40, last: 99)],
            [.suffix(length: .max), .suffix(length: 1)],
        ])
    func excessive(_ specs: [RangeSpecifier]) {
        #expect(ByteRangeSet.resolve(specs, size: 100) == .excessive)
    }

    @Test("Content-Range value")
    func contentRange() {
        #expect(ByteRange(first: 0, last: 499).contentRange(size: 1234) == "bytes 0-499/1234")
        #expect(ByteRange(first: 5, last: 5).length == 1)
    }
}
