import DepotCore
import Testing

@testable import DepotLedger

/// The pure finish rule, table-driven.
@Suite struct FinishCheckTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var expected: [PlannedDelivery]
        var delivered: [ConfirmedDelivery]
        var missing: [String]
        var wrongDigest: [String]
        var testDescription: String { name }
    }

    static let a = PlannedDelivery(contentId: "a", version: "1", digest: "da")
    static let b = PlannedDelivery(contentId: "b", version: "1", digest: "db")
    static let c = PlannedDelivery(contentId: "c", version: "2", digest: "dc")

    static let cases: [Case] = [
        Case(name: "nothing expected", expected: [], delivered: [], missing: [], wrongDigest: []),
        Case(
            name: "nothing expected, extras ignored", expected: [],
            delivered: [ConfirmedDelivery(contentId: "x", digest: "dx")], missing: [], wrongDigest: []),
        Case(
            name: "all confirmed, any order", expected: [a, b, c],
            delivered: [
                .init(contentId: "c", digest: "dc"), .init(contentId: "a", digest: "da"),
                .init(contentId: "b", digest: "db"),
            ],
            missing: [], wrongDigest: []),
        Case(name: "none confirmed", expected: [c, a, b], delivered: [], missing: ["a", "b", "c"], wrongDigest: []),
        Case(
            name: "wrong digests sorted", expected: [a, b, c],
            delivered: [
                .init(contentId: "c", digest: "dz"), .init(contentId: "a", digest: "dy"),
                .init(contentId: "b", digest: "db"),
            ],
            missing: [], wrongDigest: ["a", "c"]),
        Case(
            name: "missing and wrong", expected: [a, b, c], delivered: [.init(contentId: "b", digest: "da")],
            missing: ["a", "c"], wrongDigest: ["b"]),
        Case(
            name: "one right among several digests is enough", expected: [a],
            delivered: [.init(contentId: "a", digest: "old"), .init(contentId: "a", digest: "da")], missing: [],
            wrongDigest: []),
        Case(
            name: "digests are compared exactly", expected: [a], delivered: [.init(contentId: "a", digest: "DA")],
            missing: [], wrongDigest: ["a"]),
        Case(
            name: "repeated expectations reported once",
            expected: [a, a, PlannedDelivery(contentId: "a", version: "2", digest: "da2")],
            delivered: [], missing: ["a"], wrongDigest: []),
    ]

    @Test(arguments: cases)
    func check(_ c: Case) {
        let check = FinishCheck(expected: c.expected, delivered: c.delivered)
        #expect(check.missing == c.missing)
        #expect(check.wrongDigest == c.wrongDigest)
        #expect(check.isComplete == (c.missing.isEmpty && c.wrongDigest.isEmpty))
    }

    @Test func confirmationsAreUniqueAndOrdered() {
        #expect(FinishCheck.confirmations(of: [Self.c, Self.a, Self.b, Self.a]) == [Self.a, Self.b, Self.c])
    }
}

/// The pure coverage merge, table-driven.
@Suite struct CoverageMergeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var adding: Range<Int64>
        var stored: [Range<Int64>]
        var merged: Range<Int64>
        var absorbed: [Range<Int64>]
        var growth: Int64
        var testDescription: String { "\(adding) into \(stored)" }
    }

    static let cases: [Case] = [
        Case(adding: 0..<10, stored: [], merged: 0..<10, absorbed: [], growth: 10),
        Case(adding: 20..<30, stored: [0..<10], merged: 20..<30, absorbed: [], growth: 10),
        Case(adding: 10..<20, stored: [0..<10], merged: 0..<20, absorbed: [0..<10], growth: 10),
        Case(adding: 10..<20, stored: [20..<30], merged: 10..<30, absorbed: [20..<30], growth: 10),
        Case(adding: 10..<20, stored: [0..<10, 20..<30], merged: 0..<30, absorbed: [0..<10, 20..<30], growth: 10),
        Case(
            adding: 5..<25, stored: [0..<10, 20..<30, 40..<50], merged: 0..<30, absorbed: [0..<10, 20..<30],
            growth: 10),
        Case(adding: 2..<8, stored: [0..<10], merged: 0..<10, absorbed: [0..<10], growth: 0),
        Case(adding: 0..<100, stored: [10..<20, 30..<40], merged: 0..<100, absorbed: [10..<20, 30..<40], growth: 80),
        Case(adding: 11..<19, stored: [0..<10, 20..<30], merged: 11..<19, absorbed: [], growth: 8),
    ]

    @Test(arguments: cases)
    func merge(_ c: Case) {
        let merge = CoverageMerge(adding: c.adding, to: c.stored)
        #expect(merge.merged == c.merged)
        #expect(merge.absorbed == c.absorbed)
        #expect(merge.growth == c.growth)
    }
}
