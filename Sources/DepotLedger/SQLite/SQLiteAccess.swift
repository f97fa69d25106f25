import Foundation
import GRDB

/// One GRDB access to the SQLite file, and the executor the operation using it runs on: the operation's code runs
/// on the very thread GRDB lends the access, so that its statements run where they are asked, without a hand-off
/// to another thread and back for each.
///
/// GRDB runs an access as a synchronous closure on its own dispatch queue, while the ledger's operations are
/// async. The access closure (``serve(_:)``) therefore runs the operation's jobs, as a task executor, until the
/// operation ends: the connection is used only on GRDB's queue, inside the transaction GRDB began. Jobs that arrive
/// before the access begins wait for it; jobs that arrive after it ended (work the operation left behind) run on
/// Dispatch's threads, where a statement fails with the error that ended the access.
///
/// A write transaction holds the file's write lock from its first statement to its commit; the operation never
/// waits for a shared pool between two statements (on a loaded machine, seconds, during which another process's
/// write would wait as long and give up after the busy timeout).
final class SQLiteAccess: TaskExecutor, @unchecked Sendable {
    /// What a statement produced.
    enum Answer: Sendable {
        case changes(Int)
        case rows([SQLRow])
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    /// Set when the operation ended: whether to commit.
    private var commit: Bool?
    /// Set when the access ended (or never began); jobs then run elsewhere and statements fail with it.
    private var closed: (any Error)?
    // Set and read only on the thread serving the access.
    private var database: Database?
    private var servingThread: pthread_t?

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        guard closed == nil else {
            condition.unlock()
            let executor = asUnownedTaskExecutor()
            DispatchQueue.global().async { job.runSynchronously(on: executor) }
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs the operation's jobs on `db`'s thread until the operation ends; answers whether to commit. Blocks GRDB's
    /// queue meanwhile, as a synchronous access does.
    func serve(_ db: Database) -> Bool {
        database = db
        servingThread = pthread_self()
        defer { (database, servingThread) = (nil, nil) }
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty && commit == nil { condition.wait() }
            if jobs.isEmpty, let commit {
                condition.unlock()
                return commit
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: executor) }
        }
    }

    /// Ends the operation: the access stops serving and commits (or rolls back).
    func finish(commit: Bool) {
        condition.lock()
        self.commit = commit
        condition.signal()
        condition.unlock()
    }

    /// Ends the access (it failed, or is over): jobs still waiting, and later ones, run on Dispatch's threads.
    func close(_ error: any Error) {
        condition.lock()
        if closed == nil { closed = error }
        let waiting = jobs
        jobs.removeAll()
        condition.unlock()
        let executor = asUnownedTaskExecutor()
        for job in waiting { DispatchQueue.global().async { job.runSynchronously(on: executor) } }
    }

    /// Runs a statement on the access's connection; called from the operation, which runs on the serving thread.
    func run(_ sql: SQL, wantsRows: Bool) throws -> Answer {
        guard let database, let servingThread, pthread_equal(servingThread, pthread_self()) != 0 else {
            condition.lock()
            let closed = closed
            condition.unlock()
            throw closed ?? LedgerError.unavailable("a ledger statement was sent from outside its transaction")
        }
        let (text, binds) = SQLiteDialect().render(sql)
        let arguments = StatementArguments(binds.map(Self.databaseValue))
        guard wantsRows else {
            try database.execute(sql: text, arguments: arguments)
            return .changes(database.changesCount)
        }
        return .rows(try Row.fetchAll(database, sql: text, arguments: arguments).map(Self.sqlRow))
    }

    private static func databaseValue(_ value: SQLValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .text(let text): text.databaseValue
        case .boolean(let boolean): boolean.databaseValue
        // The dialect expands lists into one bind per element, and unreadable values are never bound.
        case .texts, .integers, .unreadable: .null
        }
    }

    private static func sqlRow(_ row: Row) -> SQLRow {
        SQLRow(
            row.databaseValues.map { value in
                switch value.storage {
                case .null: .null
                case .int64(let integer): .integer(integer)
                case .string(let text): .text(text)
                case .double(let real): .unreadable("the real \(real)")
                case .blob(let data): .unreadable("a blob of \(data.count) bytes")
                }
            })
    }
}
