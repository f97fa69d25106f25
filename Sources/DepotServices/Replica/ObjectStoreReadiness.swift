import DepotObjectStore
import Synchronization

/// Whether the object store can be used now, for `/readyz`: one listing of a single key, one attempt of at most
/// 5 seconds, its answer kept for 10 seconds (a load balancer probing every second costs one request every 10).
package final class ObjectStoreReadiness: Sendable {
    let client: ObjectStoreClient
    private let last = Mutex<(at: ContinuousClock.Instant, problem: String?)?>(nil)

    /// A probe of `settings`' bucket; nil when the settings cannot address a store.
    package init?(settings: ObjectStoreSettings) {
        var probing = settings
        probing.retry = ObjectStoreRetryPolicy(maxAttempts: 1)
        probing.timeoutSeconds = min(settings.timeoutSeconds, 5)
        guard let client = try? ObjectStoreClient(settings: probing) else { return nil }
        self.client = client
    }

    /// Why the store cannot be used, or nil when it answered.
    package func problem() async -> String? {
        let now = ContinuousClock.now
        if let kept = last.withLock({ $0 }), now - kept.at < .seconds(10) { return kept.problem }
        let problem: String?
        do throws(ObjectStoreError) {
            _ = try await client.list(prefix: "bundles/", maxKeys: 1)
            problem = nil
        } catch {
            problem = error.description
        }
        last.withLock { $0 = (now, problem) }
        return problem
    }
}
