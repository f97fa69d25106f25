import CMalloc
import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// Gives the memory the C allocator keeps free back to the system, now and then.
///
/// glibc's allocator keeps what a thread freed in that thread's arena; under steady load the pages between
/// live blocks stay resident, so the resident size creeps up for many minutes while the bytes in use stay
/// flat (`bench/soak.sh` shows both). `malloc_trim(0)` hands those free pages back (`madvise`), which
/// keeps the resident size close to what is in use. It runs only when enough is kept free to be worth it.
package struct HeapTrimmer: Service {
    /// How often the kept-free bytes are looked at.
    package let interval: Duration
    /// Kept-free bytes below which a trim is not worth its walk over the arenas.
    package let threshold: Int
    package let logger: Logger

    /// Once a minute, when 8 MiB or more are kept free.
    package init(interval: Duration = .seconds(60), threshold: Int = 8 << 20, logger: Logger) {
        self.interval = interval
        self.threshold = threshold
        self.logger = logger
    }

    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            guard !Task.isShuttingDownGracefully, !Task.isCancelled else { return }
            if let trimmed = trimIfWorthIt() {
                logger.debug(
                    "free heap returned to the system",
                    metadata: ["residentBefore": "\(trimmed.before.residentBytes)", "residentAfter": "\(trimmed.after.residentBytes)"])
            }
        }
    }

    /// Trims when at least `threshold` bytes are kept free; the figures before and after, or nil when it did not.
    package func trimIfWorthIt() -> (before: ProcessMemory, after: ProcessMemory)? {
        guard let before = ProcessMemory.read(), before.heapFreeBytes >= threshold else { return nil }
        Self.trim()
        guard let after = ProcessMemory.read() else { return nil }
        return (before, after)
    }

    /// Returns every free page the allocator holds to the system.
    package static func trim() {
        #if os(Linux)
        _ = malloc_trim(0)
        #endif
    }
}
