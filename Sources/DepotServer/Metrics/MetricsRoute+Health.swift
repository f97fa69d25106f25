import DepotLedger
import DepotServices
import DepotTelemetry
import Foundation
import Logging

/// The values the operator's alerts read, sampled at each scrape: readiness (so `depot_ready` is current even when
/// nothing probes `/readyz`), the data directory's free space against its floor, and the age of the oldest store call
/// waiting in the outbox.
extension MetricsRoute {
    func sampleHealth() async {
        if let readiness { await readiness() }
        if let floor {
            let free = floor.freeBytes()
            metrics.disk(
                path: floor.path, freeBytes: free,
                belowFloor: StorageFloor.decide(free: free, floor: floor.minFreeBytes) != .enough)
        }
        do {
            let oldest = try await ledger.storeJobs(states: [.pending], afterId: 0, limit: 1).first
            let now = Int64(Date().timeIntervalSince1970)
            metrics.outboxOldestPending(seconds: oldest.map { now - $0.createdAt } ?? 0)
        } catch {
            logger.warning("the outbox's oldest pending job not read for metrics", metadata: ["error": "\(error.message)"])
        }
    }
}
