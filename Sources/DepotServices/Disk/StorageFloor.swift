import DepotSystem
import Synchronization

/// The free-space floor of the data directory (`storage.minFreeBytes`): below it, new uploads are refused (507
/// `insufficient-storage`) and version stagings wait, so that the disk's last bytes go to what is already under way
/// (serving, the ledger's writes, bodies being received) rather than to new work that would fill it.
///
/// The free space is read from the filesystem (`statvfs`) at most once per ``cacheDuration``: a check on every
/// upload request costs one lock and, once a second, one system call. Freeing space is seen within that long,
/// without a restart. A floor of 0 turns the check off; a free space that cannot be read never refuses (the
/// writes themselves still fail cleanly when the disk is full).
package final class StorageFloor: Sendable {
    /// What the floor says about the free space last read.
    package enum Decision: Sendable, Equatable {
        /// Enough room, the floor is off, or the free space could not be read.
        case enough
        /// `free` bytes left, fewer than `floor`.
        case below(free: Int64, floor: Int64)
    }

    /// The directory whose filesystem is watched.
    package let path: String
    /// The fewest free bytes new work may start with; 0: never refused.
    package let minFreeBytes: Int64
    /// How long a reading of the free space is used before the filesystem is asked again.
    package let cacheDuration: Duration
    private let readFreeBytes: @Sendable (String) -> Int64?
    private let now: @Sendable () -> ContinuousClock.Instant
    private let last = Mutex<(at: ContinuousClock.Instant, free: Int64?)?>(nil)

    /// A floor of `minFreeBytes` under `path`; `readFreeBytes` and `now` are the filesystem and the clock (a test
    /// gives its own).
    package init(
        path: String, minFreeBytes: Int64, cacheDuration: Duration = .seconds(1),
        readFreeBytes: @escaping @Sendable (String) -> Int64? = StorageFloor.statvfsFreeBytes,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.path = path
        self.minFreeBytes = max(0, minFreeBytes)
        self.cacheDuration = cacheDuration
        self.readFreeBytes = readFreeBytes
        self.now = now
    }

    /// The bytes free under `path`, as the system says (`statvfs`); nil when it cannot be read.
    package static let statvfsFreeBytes: @Sendable (String) -> Int64? = { path in
        try? FileSystemSpace.availableBytes(path)
    }

    /// The pure rule: `free` bytes against a floor of `floor` (0 is off; an unknown free space passes).
    package static func decide(free: Int64?, floor: Int64) -> Decision {
        guard floor > 0, let free, free < floor else { return .enough }
        return .below(free: free, floor: floor)
    }

    /// The free bytes under `path`, read again when the last reading is older than ``cacheDuration``; nil when the
    /// system cannot say.
    package func freeBytes() -> Int64? {
        let instant = now()
        if let kept = last.withLock({ $0 }), instant - kept.at < cacheDuration, instant >= kept.at { return kept.free }
        let free = readFreeBytes(path)
        last.withLock { $0 = (instant, free) }
        return free
    }

    /// What the floor says now. With the floor off, the filesystem is not read.
    package func decision() -> Decision {
        guard minFreeBytes > 0 else { return .enough }
        return Self.decide(free: freeBytes(), floor: minFreeBytes)
    }

    /// Whether new work must wait for space now.
    package var isBelow: Bool { decision() != .enough }
}

extension StorageFloor.Decision {
    /// Why new work is refused, for people (no server path: answers carry it).
    package var message: String {
        switch self {
        case .enough:
            return "there is room on the disk"
        case .below(let free, let floor):
            return "the server's disk has \(free) bytes free, below its floor of \(floor) (storage.minFreeBytes); "
                + "retry once space was freed"
        }
    }
}
