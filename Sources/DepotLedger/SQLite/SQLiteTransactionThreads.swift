import Foundation

/// The threads SQLite transactions run on: each takes one transaction at a time and runs it whole, from GRDB's
/// access to the commit, never on Swift's concurrency pool nor on Dispatch's.
///
/// A transaction occupies its thread for its whole life, waits for a lock included (another process's write, up
/// to the busy timeout). It never waits for a transaction still queued, so the queue always drains: a running
/// transaction needs only its own thread.
final class SQLiteTransactionThreads: @unchecked Sendable {
    /// The threads of the process, started on first use. Eight: more than the concurrent transactions one
    /// ledger admits (one writer, at most four readers), so that ledgers on different files, or a reader beside a
    /// writer waiting for a lock, rarely wait for a thread.
    static let shared = SQLiteTransactionThreads(count: 8)

    private let condition = NSCondition()
    /// Transactions waiting for a thread, first come first served (a handful at most: `removeFirst` is cheap).
    private var waiting: [@Sendable () -> Void] = []

    private init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [self] in run() }
            thread.name = "DepotLedger.sqlite-\(index)"
            thread.start()
        }
    }

    /// Runs `transaction` on the first free thread.
    func submit(_ transaction: @escaping @Sendable () -> Void) {
        condition.lock()
        waiting.append(transaction)
        condition.signal()
        condition.unlock()
    }

    /// Runs transactions as they come, for the life of the process.
    private func run() {
        while true {
            condition.lock()
            while waiting.isEmpty { condition.wait() }
            let transaction = waiting.removeFirst()
            condition.unlock()
            transaction()
        }
    }
}
