import Synchronization

/// Running work that waits on something outside the process (a database server) for a bounded time.
enum WaitBound {
    private enum Outcome<T: Sendable>: Sendable {
        case answered(T)
        case expired
    }

    /// Runs `operation`, giving it until `bound` has passed: then calls `onExpiry` (which closes what the operation
    /// waits on, so that it ends at once) and cancels it, and answers nil once it has ended. An operation that ends
    /// first answers its value or its error.
    static func run<T: Sendable>(
        within bound: Duration, onExpiry: @escaping @Sendable () -> Void, _ operation: () async throws -> T
    ) async throws -> T? {
        try await withoutActuallyEscaping(operation) { operation in
            // The group below ends only once both of its tasks have: the operation does not outlive this call.
            nonisolated(unsafe) let operation = operation
            let ended = EndFlag()
            return try await withThrowingTaskGroup(of: Outcome<T>.self) { group in
                group.addTask {
                    defer { ended.set() }
                    return .answered(try await operation())
                }
                group.addTask {
                    do {
                        try await Task.sleep(for: bound)
                    } catch {
                        // Cancelled: by the operation's end (nothing to do), or by the caller's own cancellation,
                        // which must not wait on an operation that ignores it.
                        if !ended.isSet { onExpiry() }
                        throw error
                    }
                    return .expired
                }
                defer { group.cancelAll() }
                switch try await group.next() {
                case .answered(let value): return value
                case .expired:
                    onExpiry()
                    return nil
                case nil: return nil
                }
            }
        }
    }

    /// Whether the operation has ended, shared by the group's two tasks.
    private final class EndFlag: Sendable {
        private let ended = Mutex(false)

        var isSet: Bool { ended.withLock { $0 } }

        func set() { ended.withLock { $0 = true } }
    }
}
