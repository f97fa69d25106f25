import Synchronization

/// Running work that waits on something outside the process (a database server) for a bounded time, whatever that
/// work does once its bound has passed.
enum WaitBound {
    /// How long an operation whose bound passed (or whose caller was cancelled) is given to end once what it waits on
    /// is closed and it is cancelled; past it, the caller goes on without it.
    static let grace: Duration = .seconds(2)

    /// Runs `operation` in a task of its own, giving it until `bound` has passed. Then calls `onExpiry` (which closes
    /// what the operation waits on, so that it ends at once), cancels it, and answers nil once it has ended or `grace`
    /// has passed, whichever comes first: an operation that ignores both (a library that waits on a lease nobody
    /// will grant) is left to end on its own, and never holds its caller past `bound` + `grace`. An operation that
    /// ends first answers its value or its error. A caller cancelled meanwhile is answered `CancellationError` the
    /// same way (after `onExpiry`, within `grace`). `onAbandoned` is called when the caller goes on without the
    /// operation.
    static func run<T: Sendable>(
        within bound: Duration, grace: Duration = Self.grace, onExpiry: @escaping @Sendable () -> Void,
        onAbandoned: @escaping @Sendable () -> Void = {}, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        let gate = Gate<T>(onExpiry: onExpiry, onAbandoned: onAbandoned, grace: grace)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                gate.start(continuation, bound: bound, operation)
            }
        } onCancel: {
            gate.expire(byCaller: true)
        }
    }

    /// The one answer of a bounded run: the operation's, or the bound's.
    private final class Gate<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T?, any Error>?
            var work: Task<Void, Never>?
            var timer: Task<Void, Never>?
            /// Set once the bound passed or the caller was cancelled: whether it was the caller.
            var expiredByCaller: Bool?
            var answered = false
        }

        private let state = Mutex(State())
        private let onExpiry: @Sendable () -> Void
        private let onAbandoned: @Sendable () -> Void
        private let grace: Duration

        init(onExpiry: @escaping @Sendable () -> Void, onAbandoned: @escaping @Sendable () -> Void, grace: Duration) {
            self.onExpiry = onExpiry
            self.onAbandoned = onAbandoned
            self.grace = grace
        }

        /// Starts the operation and the bound's timer, unless the caller was cancelled before.
        func start(
            _ continuation: CheckedContinuation<T?, any Error>, bound: Duration, _ operation: @escaping @Sendable () async throws -> T
        ) {
            let cancelledAlready = state.withLock { state -> Bool in
                state.continuation = continuation
                return state.expiredByCaller != nil
            }
            if cancelledAlready {
                answer(.failure(CancellationError()))
                return
            }
            let work = Task {
                let result: Result<T, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                self.operationEnded(result)
            }
            let timer = Task {
                do { try await Task.sleep(for: bound) } catch { return }
                self.expire(byCaller: false)
            }
            // The operation may have ended, or the caller been cancelled, before these were stored: the timer is then
            // not needed, and the operation is cancelled here (the expiry found nothing to cancel).
            let (ended, expired) = state.withLock { state -> (Bool, Bool) in
                state.work = work
                state.timer = timer
                return (state.answered, state.expiredByCaller != nil)
            }
            if ended || expired { timer.cancel() }
            if expired { work.cancel() }
        }

        /// The operation ended: its answer, unless the bound passed first (then nil, or the caller's cancellation).
        private func operationEnded(_ result: Result<T, any Error>) {
            let (expiredByCaller, timer) = state.withLock { state in (state.expiredByCaller, state.timer) }
            timer?.cancel()
            switch expiredByCaller {
            case nil: answer(result.map { $0 })
            case .some(let byCaller): answer(byCaller ? .failure(CancellationError()) : .success(nil))
            }
        }

        /// The bound passed or the caller was cancelled: closes what the operation waits on, cancels it, and answers
        /// after `grace` if it has not ended by then.
        func expire(byCaller: Bool) {
            let (first, work) = state.withLock { state -> (Bool, Task<Void, Never>?) in
                guard state.expiredByCaller == nil, !state.answered else { return (false, nil) }
                state.expiredByCaller = byCaller
                return (true, state.work)
            }
            guard first else { return }
            onExpiry()
            work?.cancel()
            let grace = self.grace
            Task {
                try? await Task.sleep(for: grace)
                if self.answer(byCaller ? .failure(CancellationError()) : .success(nil)) { self.onAbandoned() }
            }
        }

        /// Resumes the caller once, with the first answer given after it started waiting; true if this was it.
        @discardableResult
        private func answer(_ result: Result<T?, any Error>) -> Bool {
            let continuation = state.withLock { state -> CheckedContinuation<T?, any Error>? in
                guard !state.answered, state.continuation != nil else { return nil }
                state.answered = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(with: result)
            return continuation != nil
        }
    }
}
