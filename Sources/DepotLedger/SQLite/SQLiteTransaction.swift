import Foundation
import GRDB

/// One SQLite transaction of the ledger, run on one of `SQLiteTransactionThreads`: that thread enters GRDB's
/// synchronous access (the writer's `BEGIN IMMEDIATE` transaction, or a reader's snapshot) and then, as this
/// `TaskExecutor`, runs the jobs of the operation's task inside it. The operation's statements therefore run
/// where its task runs, on the connection's own thread, each without a thread hand-off; only entering the
/// transaction and leaving it hop between threads.
///
/// The operation runs under this executor's preference (`withTaskExecutorPreference`), and its task calls
/// `withDatabase` for each statement. Were the task elsewhere (the first statement, or code isolated to an
/// actor), the statement is sent to the transaction's thread and its answer awaited. `end(commit:)` ends the
/// operation: the thread leaves the access, which commits or rolls back, and answers the outcome.
final class SQLiteTransaction: TaskExecutor, @unchecked Sendable {
    /// Which GRDB access the transaction runs in.
    enum Access {
        /// The writer's connection, in a transaction begun `IMMEDIATE`.
        case write
        /// A reader's connection, in a read transaction: one snapshot for all its statements.
        case read
    }

    private let access: Access
    private let condition = NSCondition()

    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var sent: [(Result<Database, any Error>) -> Void] = []
    private var thread: pthread_t?
    private var commit: Bool?
    private var ending: CheckedContinuation<Void, any Error>?
    private var closed: (any Error)?

    /// The connection, while the thread serves inside the access; used only on that thread.
    private nonisolated(unsafe) var database: Database?

    init(_ access: Access) {
        self.access = access
    }

    /// Starts the transaction on `pool` on a thread of `threads`.
    func start(on pool: DatabasePool, threads: SQLiteTransactionThreads = .shared) {
        threads.submit { [self] in run(on: pool) }
    }

    // MARK: The operation's side

    /// Runs `work` with the transaction's connection: at once on the transaction's thread, else on that thread
    /// while the caller waits.
    func withDatabase<R: Sendable>(_ work: @escaping @Sendable (Database) throws -> R) async throws -> R {
        if let database = databaseOnThisThread() { return try work(database) }
        return try await withCheckedThrowingContinuation { continuation in
            send { database in
                continuation.resume(with: Result { try work(database.get()) })
            }
        }
    }

    /// Ends the operation, committing or rolling back, and answers once the access is over: throws when the
    /// access failed (did not begin, or the commit failed). Called once, after the operation's last statement,
    /// outside the executor's preference.
    func end(commit: Bool) async throws {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            self.commit = commit
            ending = continuation
            condition.signal()
            condition.unlock()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func databaseOnThisThread() -> Database? {
        condition.lock()
        defer { condition.unlock() }
        guard let thread, pthread_equal(thread, pthread_self()) != 0 else { return nil }
        return database
    }

    private func send(_ work: @escaping (Result<Database, any Error>) -> Void) {
        condition.lock()
        if let closed {
            condition.unlock()
            work(.failure(closed))
            return
        }
        sent.append(work)
        condition.signal()
        condition.unlock()
    }

    // MARK: The thread's side

    /// Serves the transaction on the calling thread: the access, the operation inside it, then the outcome.
    private func run(on pool: DatabasePool) {
        condition.lock()
        thread = pthread_self()
        condition.unlock()
        let outcome: Result<Void, any Error>
        do {
            switch access {
            case .write:
                try pool.writeWithoutTransaction { db in
                    try db.inTransaction(.immediate) { serve(db) ? .commit : .rollback }
                }
            case .read:
                try pool.read { db in _ = serve(db) }
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        let closing = close(outcome)
        // The operation's task may still run here (when the access failed to begin) until it ends.
        let ending = serveUntilEnded(with: .failure(closing))
        ending.resume(with: outcome)
    }

    /// Runs the operation's jobs and its statements on `db` until the operation ends; answers whether to commit.
    private func serve(_ db: Database) -> Bool {
        condition.lock()
        database = db
        condition.unlock()
        _ = serveUntilEnded(with: .success(db))
        condition.lock()
        database = nil
        let commit = self.commit ?? false
        condition.unlock()
        return commit
    }

    /// Runs jobs and the statements sent, as they come, until the operation has ended and nothing is left;
    /// answers the operation's `end`, to resume.
    private func serveUntilEnded(with db: Result<Database, any Error>) -> CheckedContinuation<Void, any Error> {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty && sent.isEmpty && ending == nil { condition.wait() }
            let batch = jobs
            let statements = sent
            jobs.removeAll(keepingCapacity: true)
            sent.removeAll(keepingCapacity: true)
            let ended = batch.isEmpty && statements.isEmpty ? ending : nil
            condition.unlock()
            if let ended { return ended }
            for statement in statements { statement(db) }
            for job in batch { job.runSynchronously(on: executor) }
        }
    }

    /// The access is over: statements still waiting, and those sent from now on, fail with the answered error.
    private func close(_ outcome: Result<Void, any Error>) -> any Error {
        let closing: any Error
        switch outcome {
        case .success: closing = LedgerError.unavailable("the ledger transaction is over")
        case .failure(let error): closing = error
        }
        condition.lock()
        closed = closing
        let waiting = sent
        sent.removeAll()
        condition.unlock()
        for statement in waiting { statement(.failure(closing)) }
        return closing
    }
}
