import PostgresNIO
import ServiceLifecycle

/// The run loop of a PostgreSQL ledger's pool as a service of a service group: it runs the pool (which leases
/// connections only while it runs) and its watch until the group shuts down gracefully, then ends them, closing their
/// connections.
///
/// postgres-nio's client ends on cancellation only; this service turns the group's graceful shutdown into that
/// cancellation, so that a group listing it first ends it after every service that queries through it.
package struct PostgresClientService: Service {
    /// The pool whose run loop this is.
    package let pool: PostgresPool

    /// The service of `pool`'s run loop.
    package init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Runs the pool until the group's graceful shutdown (or cancellation).
    package func run() async throws {
        let pool = self.pool
        await cancelWhenGracefulShutdown {
            await pool.run()
        }
        await pool.shutdown(within: .seconds(30))
    }
}
