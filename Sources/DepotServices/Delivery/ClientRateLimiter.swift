import Synchronization

/// A token bucket per client address: each client may spend `capacity` at once and regains
/// `capacity` per `refillSeconds`. In memory, per instance; the number of clients tracked is bounded, the
/// fullest buckets (clients idle longest) being forgotten first.
package final class ClientRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Double
    }

    private let capacity: Double
    private let refillPerSecond: Double
    private let maxClients: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    /// A limiter allowing `capacity` per `refillSeconds` to each of at most `maxClients` tracked clients.
    package init(capacity: Int, refillSeconds: Int64, maxClients: Int = 100_000) {
        self.capacity = Double(max(1, capacity))
        self.refillPerSecond = Double(max(1, capacity)) / Double(max(1, refillSeconds))
        self.maxClients = max(1, maxClients)
    }

    /// Spends `cost` of the client's tokens at `now` (seconds). Returns nil when allowed, or the whole
    /// seconds to wait before the client has enough again; a refused request spends nothing.
    package func spend(client: String, cost: Int = 1, now: Double) -> Int64? {
        let cost = min(Double(max(1, cost)), capacity)
        return buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: capacity, updatedAt: now)
            bucket.tokens = min(capacity, bucket.tokens + max(0, now - bucket.updatedAt) * refillPerSecond)
            bucket.updatedAt = now
            guard bucket.tokens >= cost else {
                buckets[client] = bucket
                return Int64(((cost - bucket.tokens) / refillPerSecond).rounded(.up))
            }
            bucket.tokens -= cost
            if buckets[client] == nil, buckets.count >= maxClients { forgetIdlest(&buckets, now: now) }
            buckets[client] = bucket
            return nil
        }
    }

    /// Drops the buckets that have refilled (they behave like new ones), or the oldest half if none has.
    private func forgetIdlest(_ buckets: inout [String: Bucket], now: Double) {
        let full = buckets.filter { $0.value.tokens + (now - $0.value.updatedAt) * refillPerSecond >= capacity }.map(\.key)
        if !full.isEmpty {
            for key in full { buckets[key] = nil }
            return
        }
        let oldest = buckets.sorted { $0.value.updatedAt < $1.value.updatedAt }.prefix(buckets.count / 2 + 1)
        for (key, _) in oldest { buckets[key] = nil }
    }
}
