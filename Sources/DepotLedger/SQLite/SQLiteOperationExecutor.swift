import Foundation

/// Where the operations of SQLite transactions run between their statements: one thread of its own, never Swift's
/// concurrency pool nor Dispatch's. A write transaction holds the file's write lock from its first statement to
/// its commit, and the GRDB connection serving it waits, holding a Dispatch thread, for the operation's next
/// statement. Were the operation to wait for a pool between two statements (the concurrency pool's two threads,
/// or Dispatch's few, on a loaded machine: seconds), another process's write would wait as long, and give up
/// after the busy timeout. The work run here is small (building statements, reading rows), so one thread serves
/// every operation of the process.
final class SQLiteOperationExecutor: TaskExecutor, @unchecked Sendable {
    /// The one executor of the process.
    static let shared = SQLiteOperationExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "DepotLedger.sqlite-operations"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs jobs as they come, for the life of the process.
    private func run() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: executor) }
        }
    }
}
