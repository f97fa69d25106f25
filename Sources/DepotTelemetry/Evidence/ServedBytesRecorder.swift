import DepotAPI
import DepotLedger
import DepotOrigin
import Logging
import ServiceLifecycle

/// Carries "these bytes of this bundle were served for this transaction" from the event loops to the
/// ledger without ever blocking the byte path: events queue in memory (bounded) and one task writes them.
package final class ServedBytesRecorder: ServedBytesRecording, Service, Sendable {
    private let stream: AsyncStream<ServedBytes>
    private let continuation: AsyncStream<ServedBytes>.Continuation
    private let ledger: any Ledger
    private let logger: Logger
    /// Where each response's bytes are counted (`depot_bundle_bytes_total{via="grant"}`) as it is queued.
    private let metrics: DepotMetrics?

    /// Creates a recorder writing to `ledger`; at most `capacity` events wait (older ones are dropped).
    package init(ledger: any Ledger, logger: Logger, metrics: DepotMetrics? = nil, capacity: Int = 100_000) {
        self.metrics = metrics
        (stream, continuation) = AsyncStream.makeStream(of: ServedBytes.self, bufferingPolicy: .bufferingNewest(capacity))
        self.ledger = ledger
        self.logger = logger
    }

    /// Queues an event and counts its bytes; never waits.
    package func record(_ event: ServedBytes) {
        metrics?.grantDownload(bytes: event.ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) })
        if case .dropped = continuation.yield(event) {
            logger.warning("served-bytes queue full; coverage of one response not recorded")
        }
    }

    /// Writes queued events until shutdown, then the ones still queued.
    package func run() async throws {
        await withGracefulShutdownHandler {
            for await event in stream {
                for range in event.ranges {
                    do {
                        try await ledger.recordServed(
                            transactionId: event.transactionId, digest: event.digest, range: range, client: event.client,
                            now: event.at)
                    } catch {
                        logger.warning("served bytes not recorded", metadata: ["error": "\(error)"])
                    }
                }
            }
        } onGracefulShutdown: {
            self.continuation.finish()
        }
    }
}
