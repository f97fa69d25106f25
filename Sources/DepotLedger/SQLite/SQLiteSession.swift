import Dispatch
import GRDB
import Synchronization

/// A session on the SQLite connection GRDB lends one database access to.
///
/// GRDB runs an access as a synchronous closure on its own dispatch queue, while the ledger's operations are
/// async. The access closure therefore serves the statements the operation's task sends it, one at a time,
/// until the operation ends (`SQLiteStatementChannel`): the connection is used only on GRDB's queue, inside
/// the transaction GRDB began, and the task waits for each answer without blocking a thread of Swift's pool.
struct SQLiteSession: SQLSession {
    let channel: SQLiteStatementChannel

    var dialect: any SQLDialect { SQLiteDialect() }

    @discardableResult
    func execute(_ sql: SQL) async throws -> Int {
        switch try await channel.send(sql, wantsRows: false) {
        case .changes(let count): count
        case .rows: 0
        }
    }

    func rows(_ sql: SQL) async throws -> [SQLRow] {
        switch try await channel.send(sql, wantsRows: true) {
        case .rows(let rows): rows
        case .changes: []
        }
    }
}

/// Carries statements from an operation's task to the GRDB access serving them, and their answers back.
final class SQLiteStatementChannel: Sendable {
    /// What a statement produced.
    enum Answer: Sendable {
        case changes(Int)
        case rows([SQLRow])
    }

    private struct Request {
        var sql: SQL
        var wantsRows: Bool
        var continuation: CheckedContinuation<Answer, any Error>
    }

    private struct State {
        var requests: [Request] = []
        /// Set when the operation ended: whether to commit.
        var commit: Bool?
        /// Set when the access ended (or never began); later statements fail with it.
        var closed: (any Error)?
    }

    private let state = Mutex(State())
    /// Signalled once per request and once when the operation ends.
    private let signal = DispatchSemaphore(value: 0)

    /// Sends a statement and waits for its answer.
    func send(_ sql: SQL, wantsRows: Bool) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            let refusal: (any Error)? = state.withLock { state in
                if let closed = state.closed { return closed }
                state.requests.append(Request(sql: sql, wantsRows: wantsRows, continuation: continuation))
                return nil
            }
            if let refusal {
                continuation.resume(throwing: refusal)
            } else {
                signal.signal()
            }
        }
    }

    /// Ends the operation: the access stops serving and commits (or rolls back).
    func finish(commit: Bool) {
        state.withLock { $0.commit = commit }
        signal.signal()
    }

    /// Fails the statements waiting and those sent later: the access failed or is over.
    func close(_ error: any Error) {
        let waiting = state.withLock { state in
            if state.closed == nil { state.closed = error }
            defer { state.requests.removeAll() }
            return state.requests
        }
        for request in waiting { request.continuation.resume(throwing: error) }
    }

    /// Runs the statements sent, in order, on `db` until the operation ends; answers whether to commit.
    /// Blocks GRDB's queue meanwhile, as a synchronous access does.
    func serve(_ db: Database) -> Bool {
        while true {
            signal.wait()
            let next: Request? = state.withLock { state in
                state.requests.isEmpty ? nil : state.requests.removeFirst()
            }
            guard let request = next else {
                if let commit = state.withLock({ $0.commit }) { return commit }
                continue
            }
            do {
                request.continuation.resume(returning: try Self.run(request, on: db))
            } catch {
                request.continuation.resume(throwing: error)
            }
        }
    }

    private static func run(_ request: Request, on db: Database) throws -> Answer {
        let (text, binds) = SQLiteDialect().render(request.sql)
        let arguments = StatementArguments(binds.map(databaseValue))
        guard request.wantsRows else {
            try db.execute(sql: text, arguments: arguments)
            return .changes(db.changesCount)
        }
        return .rows(try Row.fetchAll(db, sql: text, arguments: arguments).map(sqlRow))
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
