import DepotCore
import Foundation
import Testing

/// Who a rollout reaches: stable buckets, about the asked share of many buyers, growing without losing anyone.
@Suite("Rollout buckets")
struct RolloutBucketTests {
    static let buyers = (0..<10_000).map { _ in "account:" + UUID().uuidString.lowercased() }

    @Test func aBuyerLandsInTheSameBucketEveryTime() {
        for buyer in Self.buyers.prefix(100) {
            let bucket = RolloutBucket.bucket(contentId: "com.example.level1", version: "1.1", buyer: buyer)
            #expect((0..<10_000).contains(bucket))
            #expect(RolloutBucket.bucket(contentId: "com.example.level1", version: "1.1", buyer: buyer) == bucket)
        }
        // Values computed apart from this code (FNV-1a 64 with a 0 byte after each part, the SplitMix64 mixer, modulo
        // 10,000, in a few lines of Python): instances of different builds sharing a ledger must draw the same buyers.
        #expect(RolloutBucket.bucket(contentId: "c", version: "1", buyer: "b") == 9381)
        #expect(
            RolloutBucket.bucket(contentId: "com.example.level1", version: "1.1", buyer: "account:3f8a1c52-0000-4000-8000-000000000001")
                == 6611)
        #expect(RolloutBucket.bucket(contentId: "p", version: "1.1", buyer: "transaction:2000000000000001") == 8126)
    }

    @Test(arguments: [1, 10, 25, 50, 90])
    func aRolloutReachesAboutItsShare(percent: Int) {
        let reached = Self.buyers.filter {
            RolloutBucket.isWithin(percent: percent, contentId: "com.example.level1", version: "1.1", buyer: $0)
        }.count
        let share = Double(reached) / Double(Self.buyers.count) * 100
        // 10,000 buyers: the standard deviation of the share is at most 0.5 points; 2.5 points is five of them.
        #expect(abs(share - Double(percent)) < 2.5, "\(percent)% reached \(share)%")
    }

    @Test func raisingARolloutKeepsEveryoneItReached() {
        for buyer in Self.buyers.prefix(2_000) {
            var reached = false
            for percent in [1, 5, 10, 25, 50, 100] {
                let now = RolloutBucket.isWithin(percent: percent, contentId: "com.example.level1", version: "1.1", buyer: buyer)
                #expect(!reached || now)
                reached = now
            }
            #expect(reached)
        }
    }

    @Test func eachVersionDrawsItsOwnBuyers() {
        let first = Set(Self.buyers.filter { RolloutBucket.isWithin(percent: 10, contentId: "c", version: "1.1", buyer: $0) })
        let second = Set(Self.buyers.filter { RolloutBucket.isWithin(percent: 10, contentId: "c", version: "1.2", buyer: $0) })
        // Independent draws of 10% overlap in about 1% of buyers, far from all of the 10%.
        #expect(first.intersection(second).count < first.count / 2)
    }
}
