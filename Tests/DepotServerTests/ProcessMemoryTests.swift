import Foundation
import Testing

@testable import DepotServer

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
