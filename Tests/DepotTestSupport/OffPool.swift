import Foundation

/// Runs blocking work (a socket read, a loop of thousands of archives, a tool's wait) on a thread of its own and
/// awaits its result, so that it never holds one of the threads of Swift's cooperative pool, on which the
/// in-process servers and App Store doubles of other tests answer (on a two-core machine the pool has two
/// threads: two blocked tests would stall every test at once), nor one of Dispatch's, which grows slowly when
/// its threads block.
package enum OffPool {
    /// `work`'s result, computed on a new thread named `name`; `work`'s error, if it throws one.
    package static func run<T, E: Error>(
        _ name: String = "depot-test-off-pool", _ work: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: Result { () throws(E) -> T in try work() }) }
            thread.name = name
            thread.stackSize = 1 << 20
            thread.start()
        }
        return try result.get()
    }
}
