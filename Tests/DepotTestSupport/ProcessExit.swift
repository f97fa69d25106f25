import Foundation
import Synchronization

/// The end of a child process, awaited without holding a thread: the process is started with a termination
/// handler, which resumes every waiter.
///
/// `Process.waitUntilExit()` blocks its thread (and spins its run loop meanwhile); on Swift's cooperative pool
/// it stalls every other test, and a handler set after the process ended never runs. Start a process through
/// `run(_:)` and await `wait()` instead.
package final class ProcessExit: Sendable {
    /// How a child process ended.
    package struct Status: Sendable, Equatable {
        /// Its exit status, or the number of the signal that ended it.
        package var code: Int32
        /// Whether a signal ended it (`Process.TerminationReason.uncaughtSignal`).
        package var bySignal: Bool
    }

    private enum State {
        case running([CheckedContinuation<Status, Never>])
        case ended(Status)
    }

    private let state = Mutex(State.running([]))

    private init() {}

    /// Starts `process` (configured, not yet run) and watches for its end.
    package static func run(_ process: Process) throws -> ProcessExit {
        let exit = ProcessExit()
        process.terminationHandler = { ended in
            exit.ended(Status(code: ended.terminationStatus, bySignal: ended.terminationReason == .uncaughtSignal))
        }
        try process.run()
        return exit
    }

    /// How the process ended, once it has.
    package func wait() async -> Status {
        await withCheckedContinuation { (continuation: CheckedContinuation<Status, Never>) in
            let ended: Status? = state.withLock { state in
                switch state {
                case .ended(let status):
                    return status
                case .running(var waiters):
                    waiters.append(continuation)
                    state = .running(waiters)
                    return nil
                }
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    /// Whether the process has ended.
    package var hasEnded: Bool {
        state.withLock { if case .ended = $0 { true } else { false } }
    }

    private func ended(_ status: Status) {
        let waiters = state.withLock { state -> [CheckedContinuation<Status, Never>] in
            guard case .running(let waiters) = state else { return [] }
            state = .ended(status)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: status) }
    }
}
