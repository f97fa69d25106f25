import PostgresNIO
import Synchronization

/// The connection a bounded ledger operation is using, so that the bound can close it: a statement waiting on a
/// server that stopped answering then fails at once instead of holding its caller.
final class HeldConnection: Sendable {
    private let connection = Mutex<PostgresConnection?>(nil)

    /// Records the connection the operation now uses.
    func hold(_ connection: PostgresConnection) {
        self.connection.withLock { $0 = connection }
    }

    /// Closes the connection in use, if any.
    func close() {
        let connection = self.connection.withLock { $0 }
        _ = connection?.close() as EventLoopFuture<Void>?
    }
}
