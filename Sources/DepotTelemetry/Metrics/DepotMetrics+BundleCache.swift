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

    /// Sets the number of the catalog's bundles this instance could not fetch from the object store (missing there, or
    /// not hashing to their digest) at its last attempt: while it is above zero, the versions they carry are refused
    /// (`bundle-unavailable`) and `/readyz` answers 503.
    package func bundlesUnfetchable(count: Int) {
        Gauge(label: Name.bundlesUnfetchable, factory: factory).record(count)
    }

    /// Sets the number of bundles built here that the object store has not taken yet (built while it could not be
    /// reached): while it is above zero, the other instances cannot fetch them and `/readyz` answers 503.
    package func bundlesUnsent(count: Int) {
        Gauge(label: Name.bundlesUnsent, factory: factory).record(count)
    }
}
