import Dispatch

/// Where the operations of SQLite transactions run between their statements: threads of a queue of their own,
/// never Swift's concurrency pool. A write transaction holds the file's write lock from its first statement to
/// its commit; were its operation to wait for the concurrency pool between two statements (seconds on a loaded
/// machine), another process's write would wait as long, and give up after the busy timeout.
final class SQLiteOperationExecutor: TaskExecutor, @unchecked Sendable {
    /// The one executor of the process.
    static let shared = SQLiteOperationExecutor()

    private let queue = DispatchQueue(label: "DepotLedger.sqlite-operations", qos: .userInitiated, attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
