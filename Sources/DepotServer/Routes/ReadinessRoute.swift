import DepotLedger
import DepotTelemetry
import Foundation
import Hummingbird
import Synchronization

/// `GET /readyz`: 200 `ready` when the server can do its work, else 503 with the reason, so a load balancer
/// stops sending it requests: the ledger must answer a read within `ledgerTimeout`, the bundle store's
/// directory must be writable (staging and deltas write there), and the object store, when bundles are shared through
/// one, must answer a listing, and every bundle of the catalog must be fetchable from it (a missing or damaged copy
/// leaves the instance degraded: it refuses the redeems that would offer that bundle until the copy is replaced), and
/// every bundle built here must have been sent to it (one built while it could not be reached leaves the instance
/// degraded until it is sent: the other instances cannot fetch it meanwhile).
struct ReadinessRoute: Sendable {
    /// One cheap read of the ledger.
    let readLedger: @Sendable () async throws(LedgerError) -> Void
    let storeDirectory: String
    /// Why the object store cannot be used now, or nil; nil without an object store.
    var objectStoreProblem: (@Sendable () async -> String?)? = nil
    /// How many of the catalog's bundles could not be fetched from the object store, and how many built here wait to
    /// be sent to it; nil without an object store.
    var replicaBacklog: (@Sendable () -> ReplicaBacklog)? = nil
    var ledgerTimeout: Duration = .seconds(5)
    /// Where each decision is recorded (`depot_ready`, `depot_ledger_available`); nil: nowhere.
    var metrics: DepotMetrics? = nil

    func register(on router: Router<DepotRequestContext>) {
        router.get("/readyz") { _, _ in
            if let reason = await self.reasonNotReady() {
                return Response(
                    status: .serviceUnavailable, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                    body: .init(byteBuffer: .init(string: "not ready: \(reason)\n")))
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: .init(string: "ready\n")))
        }
    }

    /// Why the server is not ready, or nil; recorded in `metrics`.
    func reasonNotReady() async -> String? {
        let reason = await decide()
        metrics?.ready(reason == nil)
        return reason
    }

    private func decide() async -> String? {
        let readLedger = readLedger
        let timeout = ledgerTimeout
        // Whichever comes first answers: a ledger that hangs (an unreachable server) must not hold the probe.
        let ledgerReason = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let answered = Mutex(false)
            let answer: @Sendable (String?) -> Void = { reason in
                let first = answered.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: reason) }
            }
            Task {
                do throws(LedgerError) {
                    try await readLedger()
                    answer(nil)
                } catch {
                    answer("the ledger cannot be read (\(error.message))")
                }
            }
            Task {
                try? await Task.sleep(for: timeout)
                answer("the ledger did not answer within \(timeout)")
            }
        }
        metrics?.ledgerAvailable(ledgerReason == nil)
        if let ledgerReason { return ledgerReason }
        guard FileManager.default.isWritableFile(atPath: storeDirectory) else {
            return "the bundle store \(storeDirectory) is not writable"
        }
        if let objectStoreProblem, let problem = await objectStoreProblem() {
            return "the object store cannot be used (\(problem))"
        }
        if let backlog = replicaBacklog?() {
            if backlog.unfetchable > 0 {
                let count = backlog.unfetchable
                return "degraded: \(count) published bundle\(count == 1 ? "" : "s") cannot be fetched from the object store"
            }
            if backlog.unsent > 0 {
                let count = backlog.unsent
                return
                    "degraded: \(count) bundle\(count == 1 ? "" : "s") built here \(count == 1 ? "is" : "are") not yet in the object store"
            }
        }
        return nil
    }
}
