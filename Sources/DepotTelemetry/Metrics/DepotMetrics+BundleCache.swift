import DepotBundles
import Metrics

extension DepotMetrics {
    /// Brings the local bundle cache's counters and gauge up to what the store counted: answers that found their
    /// file on this disk (`result="hit"`) or had it fetched first (`result="miss"`), files removed to keep within the
    /// budget and their bytes, and the bytes held now.
    package func mirror(bundleCache counts: BundleCacheCounts) {
        mirrors.advance(Name.bundleCacheLookups, dimensions: [("result", "hit")], to: counts.hits, factory: factory)
        mirrors.advance(Name.bundleCacheLookups, dimensions: [("result", "miss")], to: counts.misses, factory: factory)
        mirrors.advance(Name.bundleCacheEvictions, dimensions: [], to: counts.evictions, factory: factory)
        mirrors.advance(Name.bundleCacheEvictedBytes, dimensions: [], to: Int(counts.evictedBytes), factory: factory)
        Gauge(label: Name.bundleCacheBytes, factory: factory).record(counts.bytes)
    }
}
