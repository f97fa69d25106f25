import PostgresNIO
import ServiceLifecycle

/// The run loop of a PostgreSQL client as a service of a service group: it runs the client (which leases
/// connections only while it runs) until the group shuts down gracefully, then ends it, closing its connections.
///
/// postgres-nio's client ends on cancellation only; this service turns the group's graceful shutdown into that
/// cancellation, so that a group listing it first ends it after every service that queries through it.
package struct PostgresClientService: Service {
    /// The client whose run loop this is.
    package let client: PostgresClient

    /// The service of `client`'s run loop.
    package init(client: PostgresClient) {
        self.client = client
    }

    /// Runs the client until the group's graceful shutdown (or cancellation).
    package func run() async throws {
        let client = self.client
        await cancelWhenGracefulShutdown {
            await client.run()
        }
    }
}
