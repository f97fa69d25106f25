import Dispatch

/// Blocking file work (reading packs, unpacking archives, hashing uploads and bundles, object store files) runs
/// here: on a Dispatch queue, off the event loops and off the concurrency pool.
package enum OffLoop {
    /// Runs `work` on a utility queue and returns its result.
    package static func run<R: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> R) async throws(E) -> R {
        let result: Result<R, E> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: Result { () throws(E) -> R in try work() })
            }
        }
        return try result.get()
    }
}
