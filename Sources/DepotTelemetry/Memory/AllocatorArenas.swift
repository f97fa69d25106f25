import CMalloc

#if canImport(Glibc)
import Glibc
#endif

/// How many arenas the C allocator may keep, set once when the server starts.
///
/// glibc gives threads up to eight arenas per core; a block freed on another thread than the one that
/// allocated it goes back to its own arena, and each arena keeps its free pages. A server whose event loops,
/// Swift's cooperative threads and the ledger's threads all allocate ends up holding several times what it
/// uses (`bench/soak.sh`: 21 MiB kept free beside 8.5 MiB in use after 200 s with the default, 7 MiB with
/// two arenas, and a resident size 12 MiB lower). One arena per core, at least two, keeps that small.
/// `MALLOC_ARENA_MAX` in the environment, which glibc reads itself, is left to win.
package enum AllocatorArenas {
    /// The arena limit for a machine with `cores` cores.
    package static func limit(cores: Int) -> Int { max(2, cores) }

    /// Sets the limit unless `MALLOC_ARENA_MAX` is set; the limit set, or nil when left as it was.
    @discardableResult
    package static func applyLimit(environment: [String: String], cores: Int) -> Int? {
        #if os(Linux)
        guard environment["MALLOC_ARENA_MAX"] == nil else { return nil }
        let limit = limit(cores: cores)
        return mallopt(M_ARENA_MAX, Int32(limit)) == 1 ? limit : nil
        #else
        return nil
        #endif
    }
}
