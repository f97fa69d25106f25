import DepotLedger
import Logging
import ServiceLifecycle

/// Reloads revoked transactions from the ledger every few seconds, so that a refund recorded by another
/// instance sharing the ledger stops grants here too.
struct RevocationRefresh: Service {
    let ledger: any Ledger
    let revocations: RevocationList
    let interval: Duration
    let logger: Logger

    func run() async throws {
        // A graceful shutdown cancels the wait; that is the normal end, not an error.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                do {
                    revocations.replace(with: try await ledger.revokedTransactionIds())
                } catch {
                    logger.warning("revocations not refreshed", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
