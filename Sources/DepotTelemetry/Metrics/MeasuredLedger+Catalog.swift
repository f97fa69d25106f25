import DepotCore
import DepotLedger

/// The catalog, publisher keys and version jobs, timed.
extension MeasuredLedger {
    package func catalogRevision() async throws(LedgerError) -> Int64 {
        try await timed("catalogRevision") { () async throws(LedgerError) in try await base.catalogRevision() }
    }

    package func catalogSnapshot() async throws(LedgerError) -> CatalogSnapshot {
        try await timed("catalogSnapshot") { () async throws(LedgerError) in try await base.catalogSnapshot() }
    }

    package func catalogProduct(id: String) async throws(LedgerError) -> CatalogProduct? {
        try await timed("catalogProduct") { () async throws(LedgerError) in try await base.catalogProduct(id: id) }
    }

    package func writeProduct(
        _ product: CatalogProduct, keepExisting: Bool, now: Int64
    ) async throws(LedgerError)
        -> ProductWriteOutcome
    {
        try await timed("writeProduct") { () async throws(LedgerError) in
            try await base.writeProduct(product, keepExisting: keepExisting, now: now)
        }
    }

    package func catalogVersions(productId: String) async throws(LedgerError) -> [CatalogVersion] {
        try await timed("catalogVersions") { () async throws(LedgerError) in try await base.catalogVersions(productId: productId) }
    }

    package func addVersion(
        _ version: ContentVersion, state: VersionState, now: Int64
    ) async throws(LedgerError)
        -> AddVersionOutcome
    {
        try await timed("addVersion") { () async throws(LedgerError) in try await base.addVersion(version, state: state, now: now) }
    }

    package func publishVersion(
        productId: String, contentId: String, version: String, release: VersionRelease, now: Int64
    ) async throws(LedgerError)
        -> PublishOutcome
    {
        try await timed("publishVersion") { () async throws(LedgerError) in
            try await base.publishVersion(productId: productId, contentId: contentId, version: version, release: release, now: now)
        }
    }

    package func deleteVersion(
        productId: String, contentId: String, version: String
    ) async throws(LedgerError)
        -> DeleteVersionOutcome
    {
        try await timed("deleteVersion") { () async throws(LedgerError) in
            try await base.deleteVersion(productId: productId, contentId: contentId, version: version)
        }
    }

    package func recordDelta(_ delta: DeltaBundle) async throws(LedgerError) -> Bool {
        try await timed("recordDelta") { () async throws(LedgerError) in try await base.recordDelta(delta) }
    }

    package func createPublisherKey(_ key: PublisherKeyRecord) async throws(LedgerError) {
        try await timed("createPublisherKey") { () async throws(LedgerError) in try await base.createPublisherKey(key) }
    }

    package func publisherKeys() async throws(LedgerError) -> [PublisherKeyRecord] {
        try await timed("publisherKeys") { () async throws(LedgerError) in try await base.publisherKeys() }
    }

    package func publisherKey(digest: [UInt8]) async throws(LedgerError) -> PublisherKeyRecord? {
        try await timed("publisherKey") { () async throws(LedgerError) in try await base.publisherKey(digest: digest) }
    }

    package func revokePublisherKey(id: String, now: Int64) async throws(LedgerError) -> KeyRevocationOutcome {
        try await timed("revokePublisherKey") { () async throws(LedgerError) in try await base.revokePublisherKey(id: id, now: now) }
    }

    package func createVersionJob(_ job: VersionJob, staleBefore: Int64) async throws(LedgerError) -> VersionJobCreation {
        try await timed("createVersionJob") { () async throws(LedgerError) in try await base.createVersionJob(job, staleBefore: staleBefore)
        }
    }

    package func updateVersionJob(
        id: String, state: VersionJobState, failureReason: String?, now: Int64
    )
        async throws(LedgerError) -> Bool
    {
        try await timed("updateVersionJob") { () async throws(LedgerError) in
            try await base.updateVersionJob(id: id, state: state, failureReason: failureReason, now: now)
        }
    }

    package func versionJob(id: String) async throws(LedgerError) -> VersionJob? {
        try await timed("versionJob") { () async throws(LedgerError) in try await base.versionJob(id: id) }
    }

    package func versionJobs(productId: String) async throws(LedgerError) -> [VersionJob] {
        try await timed("versionJobs") { () async throws(LedgerError) in try await base.versionJobs(productId: productId) }
    }

    package func failStaleVersionJobs(before: Int64, reason: String, now: Int64) async throws(LedgerError) -> Int {
        try await timed("failStaleVersionJobs") { () async throws(LedgerError) in
            try await base.failStaleVersionJobs(before: before, reason: reason, now: now)
        }
    }
}
