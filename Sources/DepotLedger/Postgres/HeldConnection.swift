import PostgresNIO
import Synchronization

/// The connection a bounded ledger operation is using, so that the bound can close it: a statement waiting on a
/// server that stopped answering then fails at once instead of holding its caller.
final class HeldConnection: Sendable {
    private struct State {
        var connection: PostgresConnection?
        /// Whether the bound has expired: a connection held after it is closed at once.
        var expired = false
        /// Whether a connection was held when the bound expired.
        var heldAtExpiry = false
    }

    private let state = Mutex(State())

    /// Whether a connection was held when the bound expired (a statement waited, rather than a lease).
    var heldAtExpiry: Bool {
        state.withLock { $0.heldAtExpiry }
    }

    /// Records the connection the operation now uses; closes it at once if the bound has already expired.
    func hold(_ connection: PostgresConnection) {
        let expired = state.withLock { state -> Bool in
            state.connection = connection
            return state.expired
        }
        if expired { _ = connection.close() as EventLoopFuture<Void> }
    }

    /// Forgets the connection before it goes back to the pool: the bound never closes a connection another
    /// operation leased.
    func release() {
        state.withLock { $0.connection = nil }
    }

    /// The bound expired: closes the connection in use, if any.
    func close() {
        let connection = state.withLock { state -> PostgresConnection? in
            state.expired = true
            state.heldAtExpiry = state.connection != nil
            return state.connection
        }
        _ = connection?.close() as EventLoopFuture<Void>?
    }
}
