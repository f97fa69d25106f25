import Foundation

/// Runs long blocking work (thousands of archives read in a loop, say) on a thread of its own, so that it does
/// not hold one of the few threads of Swift's cooperative pool, on which the servers and App Store doubles that
/// other tests run in this process answer: on a two-core machine two such loops would stall them all.
package enum DedicatedThread {
    /// `work`'s result, computed on a new thread.
    package static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
