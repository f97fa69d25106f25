import Synchronization

/// Waiting for a task to end, for a bounded time.
enum BoundedWait {
    /// Waits until `task` ends or `bound` has passed, whichever comes first; true when the task ended in time.
    /// The task is neither cancelled nor awaited past the bound: a task that never ends costs its own resources,
    /// not the caller's wait.
    static func end(of task: Task<Void, Never>, within bound: Duration) async -> Bool {
        let waiter = FirstAnswer()
        return await withCheckedContinuation { continuation in
            waiter.install(continuation)
            let timer = Task {
                try? await Task.sleep(for: bound)
                waiter.answer(false)
            }
            Task {
                await task.value
                waiter.answer(true)
                timer.cancel()
            }
        }
    }

    /// Resumes its continuation once, with the first answer given.
    private final class FirstAnswer: Sendable {
        private let continuation = Mutex<CheckedContinuation<Bool, Never>?>(nil)

        func install(_ continuation: CheckedContinuation<Bool, Never>) {
            self.continuation.withLock { $0 = continuation }
        }

        func answer(_ value: Bool) {
            let waiting = continuation.withLock { stored in
                defer { stored = nil }
                return stored
            }
            waiting?.resume(returning: value)
        }
    }
}
