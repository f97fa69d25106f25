/// Serializes the store's bookkeeping: the build cache, and one build per pack fingerprint at a time
/// (a second request for a pack being built waits for that build instead of starting its own).
actor BuildCoordinator {
    private let layout: StoreLayout
    private var index: BundleIndex
    private var inFlight: [String: Task<BundleRecord, any Error>] = [:]
    /// Builds that ran to completion (cache hits and joined builds are not counted).
    private(set) var completedBuilds = 0

    init(layout: StoreLayout, index: BundleIndex) {
        self.layout = layout
        self.index = index
    }

    /// The bundle for `fingerprint`: from the cache when it is in place, from a running build, or from
    /// `build`, whose result is then recorded in the index.
    func bundle(
        for fingerprint: String, build: @escaping @Sendable () async throws -> BundleRecord
    ) async throws -> BundleRecord {
        if let record = index.entries[fingerprint], layout.holds(record) {
            return record
        }
        if let running = inFlight[fingerprint] {
            return try await running.value
        }
        let task = Task { try await build() }
        inFlight[fingerprint] = task
        let result = await task.result
        inFlight[fingerprint] = nil
        let record = try result.get()
        completedBuilds += 1
        index.entries[fingerprint] = record
        do {
            try layout.writeAtomically(index.encoded(), to: layout.indexPath, directory: layout.root)
        } catch {
            throw BundleStoreError("writing the build index", error)
        }
        return record
    }

    /// The cached record for `fingerprint`, if any (whether or not its file is still in place).
    func cachedRecord(for fingerprint: String) -> BundleRecord? {
        index.entries[fingerprint]
    }
}
