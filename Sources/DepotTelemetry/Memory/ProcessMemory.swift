import CMalloc

#if canImport(Glibc)
import Glibc
#endif

/// What the process holds, read from the kernel (`/proc/self`) and from the C allocator (`mallinfo2`), so that
/// a resident size that grows can be told apart: live heap that grows is a leak, free heap that grows is
/// the allocator keeping what was freed.
package struct ProcessMemory: Sendable, Equatable {
    /// Resident set size: the pages of the process in memory.
    package var residentBytes: Int
    /// Bytes the allocator has handed out and not had back (small blocks and mapped large ones).
    package var heapInUseBytes: Int
    /// Bytes the allocator holds free in its arenas, not returned to the system.
    package var heapFreeBytes: Int
    /// File descriptors open now (sockets, files, pipes).
    package var openFileDescriptors: Int

    /// The figures now, or nil where the system has no `/proc` or no `mallinfo2` (not Linux with glibc).
    package static func read() -> ProcessMemory? {
        #if os(Linux)
        guard let statm = Self.firstLine(of: "/proc/self/statm") else { return nil }
        let pages = statm.split(separator: " ")
        guard pages.count > 1, let resident = Int(pages[1]) else { return nil }
        let heap = depot_mallinfo()
        return ProcessMemory(
            residentBytes: resident * Int(sysconf(Int32(_SC_PAGESIZE))),
            heapInUseBytes: Int(heap.uordblks) + Int(heap.hblkhd),
            heapFreeBytes: Int(heap.fordblks),
            openFileDescriptors: Self.openDescriptorCount())
        #else
        return nil
        #endif
    }

    #if os(Linux)
    private static func firstLine(of path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        return String(decoding: line.prefix(while: { $0 != 0 && $0 != 10 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func openDescriptorCount() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in name.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        // The directory being read is itself an open descriptor.
        return max(0, count - 1)
    }
    #endif
}
