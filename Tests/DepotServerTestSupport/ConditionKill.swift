import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Kills a process with SIGKILL the moment a condition on the file system holds, watched from a thread of its
/// own. A watch on the test's task would share the two-thread concurrency pool with every suite running beside
/// it, and on a loaded machine could sleep through a window of several seconds (a version job's whole bundling).
enum ConditionKill {
    /// Watches `condition` every 200 µs from a dedicated thread and sends SIGKILL to `pid` as soon as it holds.
    /// Stops watching when `gaveUp` holds first (the work ended before it could be killed) or after `bound`.
    /// Returns whether it killed.
    static func kill(
        pid: Int32, within bound: Duration, when condition: @escaping @Sendable () -> Bool,
        unless gaveUp: @escaping @Sendable () -> Bool = { false }
    ) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let deadline = ContinuousClock.now + bound
            let thread = Thread {
                while ContinuousClock.now < deadline {
                    if condition() {
                        _ = Glibc.kill(pid, SIGKILL)
                        continuation.resume(returning: true)
                        return
                    }
                    if gaveUp() { break }
                    usleep(200)
                }
                continuation.resume(returning: false)
            }
            thread.name = "condition-kill"
            thread.start()
        }
    }
}
