import DepotCore
import DepotLedger
import DepotOrigin
import Testing

@testable import DepotTelemetry

/// `MergedServedRanges`, the recorder's per-transaction merge past its share of the queue: touching ranges become
/// one interval, apart ones stay sorted and apart, and once the bound is reached only ranges touching a kept
/// interval are taken in.
@Suite("Merged served ranges")
struct MergedServedRangesTests {
    static let first = BundleDigest(hex: String(repeating: "a", count: 64))!
    static let second = BundleDigest(hex: String(repeating: "b", count: 64))!

    /// One answer for transaction `t1`.
    static func answer(
        _ ranges: [Range<Int64>], digest: BundleDigest = first, client: String = "192.0.2.1", at: Int64
    )
        -> ServedBytes
    {
        ServedBytes(transactionId: "t1", digest: digest, ranges: ranges, client: client, at: at)
    }

    @Test(
        arguments: [
            // (intervals before, range, intervals after, change in their number)
            ([0..<10], 20..<30, [0..<10, 20..<30], 1),
            ([20..<30], 0..<10, [0..<10, 20..<30], 1),
            ([0..<10], 10..<20, [0..<20], 0),
            ([10..<20], 0..<10, [0..<20], 0),
            ([0..<10, 20..<30, 40..<50], 5..<45, [0..<50], -2),
            ([0..<10, 20..<30, 40..<50], 10..<20, [0..<30, 40..<50], -1),
            ([0..<100], 20..<30, [0..<100], 0),
        ] as [([Range<Int64>], Range<Int64>, [Range<Int64>], Int)])
    func aRangeIsMergedIntoTheIntervalsItTouches(
        before: [Range<Int64>], range: Range<Int64>, after: [Range<Int64>], growth: Int
    ) {
        var intervals = before
        #expect(MergedServedRanges.insert(range, into: &intervals, mayGrow: true) == growth)
        #expect(intervals == after)
    }

    @Test func aRangeTouchingNothingIsRefusedWhenTheIntervalsMayNotGrow() {
        var intervals: [Range<Int64>] = [0..<10, 40..<50]
        #expect(MergedServedRanges.insert(20..<30, into: &intervals, mayGrow: false) == nil)
        #expect(intervals == [0..<10, 40..<50])
        // One touching a kept interval is merged all the same.
        #expect(MergedServedRanges.insert(10..<40, into: &intervals, mayGrow: false) == -1)
        #expect(intervals == [0..<50])
    }

    @Test func pastTheLimitOnlyTouchingRangesAreTakenInAndTheRestAreCounted() {
        var merged = MergedServedRanges(limit: 2)
        #expect(merged.add(Self.answer([0..<10], at: 1)) == 0)
        #expect(merged.add(Self.answer([100..<110], at: 2)) == 0)
        // The limit holds two intervals: a third apart range is left out, a touching one extends its interval.
        #expect(merged.add(Self.answer([200..<210, 10..<20], at: 3)) == 1)
        let ranges = merged.ranges(transactionId: "t1")
        #expect(ranges.map(\.range) == [0..<20, 100..<110])
        // Every answer is a request and every byte sent counts, those of the range left out too.
        #expect(ranges[0].requests == 3)
        #expect(ranges[0].bytesSent == 40)
        #expect(ranges[1].requests == 0 && ranges[1].bytesSent == 0)
        #expect(ranges.allSatisfy { $0.firstAt == 1 && $0.at == 3 && $0.transactionId == "t1" })
    }

    @Test func bundlesKeepTheOrderTheyArrivedInAndShareTheLimit() {
        var merged = MergedServedRanges(limit: 2)
        #expect(merged.add(Self.answer([0..<10], digest: Self.second, client: "a", at: 5)) == 0)
        #expect(merged.add(Self.answer([0..<10], digest: Self.first, client: "b", at: 4)) == 0)
        #expect(merged.add(Self.answer([50..<60], digest: Self.first, client: "c", at: 6)) == 1)
        let ranges = merged.ranges(transactionId: "t1")
        #expect(ranges.map(\.digest) == [Self.second, Self.first])
        #expect(ranges.map(\.client) == ["a", "c"], "a bundle's client is its latest answer's")
        #expect(ranges[1].firstAt == 4 && ranges[1].at == 6)
    }

    @Test func anAnswerWithoutRangesIsARequestOnAnEmptyInterval() {
        var merged = MergedServedRanges(limit: 0)
        #expect(merged.limit == 1, "a limit below one holds one interval")
        #expect(merged.add(Self.answer([5..<5], at: 7)) == 0)
        let ranges = merged.ranges(transactionId: "t1")
        #expect(
            ranges == [
                ServedRange(
                    transactionId: "t1", digest: Self.first, range: 0..<0, client: "192.0.2.1", at: 7, firstAt: 7,
                    requests: 1, bytesSent: 0)
            ])
    }
}
