import DepotTelemetry
import Foundation
import Logging
import Testing

/// `ProcessMemory` reads what the kernel and the allocator say: a large block allocated and touched shows in
/// the heap in use and in the resident size, and a descriptor opened shows in the count.
@Suite("Process memory figures")
struct ProcessMemoryTests {
    @Test func aLargeBlockShowsInTheHeapAndTheResidentSize() throws {
        let size = 64 << 20
        // Other tests in this process allocate and free at the same time: the block must show in one of a few
        // readings, and it cannot be hidden in all of them.
        var shown = false
        for _ in 0..<5 where !shown {
            let before = try #require(ProcessMemory.read())
            let block = try #require(malloc(size))
            memset(block, 1, size)
            let after = try #require(ProcessMemory.read())
            free(block)
            shown = after.heapInUseBytes - before.heapInUseBytes >= size / 2 && after.residentBytes - before.residentBytes >= size / 2
        }
        #expect(shown)
    }

    @Test func openDescriptorsAreCounted() throws {
        var shown = false
        for _ in 0..<5 where !shown {
            let before = try #require(ProcessMemory.read()).openFileDescriptors
            let descriptors = (0..<64).map { _ in open("/dev/null", O_RDONLY) }
            let after = try #require(ProcessMemory.read()).openFileDescriptors
            for descriptor in descriptors { close(descriptor) }
            shown = after - before >= 32
        }
        #expect(shown)
    }
}

/// `HeapTrimmer` gives freed pages back: many small blocks freed around a few kept ones stay resident until
/// the trim, and leave after it.
@Suite("Heap trimming")
struct HeapTrimmerTests {
    @Test func freedPagesBetweenLiveBlocksLeaveTheResidentSet() throws {
        let count = 200_000
        let size = 256
        var shown = false
        for _ in 0..<5 where !shown {
            let blocks = (0..<count).map { _ in malloc(size)! }
            for block in blocks { memset(block, 1, size) }
            // Every 64th block stays, so the freed ones cannot fold into the top of the heap and be returned
            // by the allocator on its own.
            for (index, block) in blocks.enumerated() where index % 64 != 0 { free(block) }
            let trimmer = HeapTrimmer(threshold: 0, logger: Logger(label: "depot-test"))
            let trimmed = try #require(trimmer.trimIfWorthIt())
            for (index, block) in blocks.enumerated() where index % 64 == 0 { free(block) }
            shown = trimmed.before.residentBytes - trimmed.after.residentBytes >= count * size / 4
        }
        #expect(shown)
    }

    @Test func nothingIsTrimmedBelowTheThreshold() {
        let trimmer = HeapTrimmer(threshold: Int.max, logger: Logger(label: "depot-test"))
        #expect(trimmer.trimIfWorthIt() == nil)
    }
}

/// The allocator's arena limit: one per core, at least two, and `MALLOC_ARENA_MAX` left to win.
@Suite("Allocator arenas")
struct AllocatorArenasTests {
    @Test func oneArenaPerCoreAndAtLeastTwo() {
        #expect(AllocatorArenas.limit(cores: 1) == 2)
        #expect(AllocatorArenas.limit(cores: 2) == 2)
        #expect(AllocatorArenas.limit(cores: 16) == 16)
    }

    @Test func theEnvironmentWins() {
        #expect(AllocatorArenas.applyLimit(environment: ["MALLOC_ARENA_MAX": "4"], cores: 2) == nil)
        #if os(Linux)
        #expect(AllocatorArenas.applyLimit(environment: [:], cores: ProcessInfo.processInfo.activeProcessorCount) != nil)
        #endif
    }
}
