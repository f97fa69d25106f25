import DepotServices
import Synchronization
import Testing

/// The free-space floor's decision (`storage.minFreeBytes`), with the filesystem and the clock given by the test: the
/// rule, the one-second reading, and recovery once space is freed.
@Suite("The free-space floor")
struct StorageFloorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var free: Int64?
        var floor: Int64
        var expected: StorageFloor.Decision
        var testDescription: String { "free \(free.map(String.init) ?? "unknown"), floor \(floor)" }
    }

    static let cases: [Case] = [
        Case(free: 0, floor: 0, expected: .enough),
        Case(free: 100, floor: 0, expected: .enough),
        Case(free: nil, floor: 1 << 30, expected: .enough),
        Case(free: 1 << 30, floor: 1 << 30, expected: .enough),
        Case(free: (1 << 30) - 1, floor: 1 << 30, expected: .below(free: (1 << 30) - 1, floor: 1 << 30)),
        Case(free: 0, floor: 1, expected: .below(free: 0, floor: 1)),
        Case(free: Int64.max, floor: Int64.max, expected: .enough),
        Case(free: Int64.max - 1, floor: Int64.max, expected: .below(free: Int64.max - 1, floor: Int64.max)),
        Case(free: -1, floor: 1, expected: .below(free: -1, floor: 1)),
    ]

    @Test(arguments: cases)
    func theRule(_ row: Case) {
        #expect(StorageFloor.decide(free: row.free, floor: row.floor) == row.expected)
    }

    /// A filesystem whose free bytes the test sets, counting how often it is read, and a clock the test moves.
    final class Disk: Sendable {
        let free = Mutex<Int64?>(0)
        let reads = Mutex(0)
        let start = ContinuousClock.now
        let elapsed = Mutex(Duration.zero)

        func floor(minFreeBytes: Int64) -> StorageFloor {
            StorageFloor(
                path: "/data", minFreeBytes: minFreeBytes,
                readFreeBytes: { _ in
                    self.reads.withLock { $0 += 1 }
                    return self.free.withLock { $0 }
                },
                now: { self.start + self.elapsed.withLock { $0 } })
        }

        func advance(_ duration: Duration) { elapsed.withLock { $0 += duration } }
    }

    @Test func belowTheFloorRefusesAndFreedSpaceIsSeenWithinASecond() {
        let disk = Disk()
        disk.free.withLock { $0 = 10 }
        let floor = disk.floor(minFreeBytes: 100)
        #expect(floor.decision() == .below(free: 10, floor: 100))
        #expect(floor.isBelow)
        // Space is freed: the reading is kept for under a second, then read again.
        disk.free.withLock { $0 = 1_000 }
        disk.advance(.milliseconds(500))
        #expect(floor.isBelow)
        disk.advance(.milliseconds(500))
        #expect(floor.decision() == .enough)
        // And filled again.
        disk.free.withLock { $0 = 99 }
        disk.advance(.seconds(1))
        #expect(floor.decision() == .below(free: 99, floor: 100))
    }

    @Test func theFilesystemIsReadAtMostOncePerSecond() {
        let disk = Disk()
        disk.free.withLock { $0 = 5_000 }
        let floor = disk.floor(minFreeBytes: 100)
        for _ in 0..<1_000 { #expect(floor.decision() == .enough) }
        #expect(disk.reads.withLock { $0 } == 1)
        disk.advance(.milliseconds(999))
        _ = floor.decision()
        #expect(disk.reads.withLock { $0 } == 1)
        disk.advance(.milliseconds(1))
        _ = floor.decision()
        #expect(disk.reads.withLock { $0 } == 2)
    }

    @Test func aFloorOfZeroNeverReadsNorRefuses() {
        let disk = Disk()
        let floor = disk.floor(minFreeBytes: 0)
        #expect(floor.decision() == .enough)
        #expect(disk.reads.withLock { $0 } == 0)
    }

    @Test func aFreeSpaceThatCannotBeReadDoesNotRefuse() {
        let disk = Disk()
        disk.free.withLock { $0 = nil }
        #expect(disk.floor(minFreeBytes: 1 << 30).decision() == .enough)
    }

    @Test func theSystemReaderSeesTheFilesystemOfARealDirectory() throws {
        let free = try #require(StorageFloor.statvfsFreeBytes("/"))
        #expect(free >= 0)
        #expect(StorageFloor.statvfsFreeBytes("/no/such/directory/here") == nil)
        #expect(StorageFloor(path: "/", minFreeBytes: Int64.max).isBelow)
    }

    @Test func theMessageNamesTheSettingAndNoPath() {
        let message = StorageFloor.Decision.below(free: 10, floor: 100).message
        #expect(message.contains("storage.minFreeBytes"))
        #expect(message.contains("10 bytes free"))
        #expect(!message.contains("/data"))
    }
}
