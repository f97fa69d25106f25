import DepotLedger
import Logging
import ServiceLifecycle

/// Polls the ledger's catalog revision every `interval` and installs the new catalog when it moved, so a
/// publish, a rollback or a product edit made through any instance sharing the ledger is served here
/// within one interval, without a restart.
package struct CatalogWatcher: Service {
    let refresher: CatalogRefresher
    let interval: Duration
    let logger: Logger

    /// A watcher refreshing with `refresher` every `interval`.
    package init(refresher: CatalogRefresher, interval: Duration, logger: Logger) {
        self.refresher = refresher
        self.interval = interval
        self.logger = logger
    }

    /// Polls until a graceful shutdown.
    package func run() async throws {
        // A graceful shutdown cancels the wait; that is the normal end, not an error.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                do {
                    if try await refresher.refresh() {
                        logger.info("catalog changed", metadata: ["revision": "\(refresher.holder.revision)"])
                    }
                } catch {
                    // A refresh cut by the shutdown is no failure.
                    if Task.isCancelled { break }
                    logger.warning("catalog not refreshed", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
