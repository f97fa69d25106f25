import DepotCore

/// The catalog in the ledger: products, content versions with their state, delta bundles, and a revision
/// counter that every change increments, so instances sharing the ledger notice a change by polling one
/// number. Every method is one transaction; a catalog change and its revision bump commit together.
package protocol CatalogLedger: Sendable {
    /// The catalog's revision: 0 for an empty catalog, incremented by every change.
    func catalogRevision() async throws(LedgerError) -> Int64

    /// The whole catalog, read in one snapshot.
    func catalogSnapshot() async throws(LedgerError) -> CatalogSnapshot

    /// One product, if recorded.
    func catalogProduct(id: String) async throws(LedgerError) -> CatalogProduct?

    /// Creates or updates a product (a publisher's edit: the revision moves and `changedAt` becomes `now`
    /// when something changed). With `keepExisting`, an existing product is left as it is (`kept` when it
    /// differs): the start-up import never overwrites a publisher's edit. Once a product has a version or a
    /// transaction its type and period are fixed: a write changing them is `typeLocked` and changes nothing.
    func writeProduct(
        _ product: CatalogProduct, keepExisting: Bool, now: Int64
    ) async throws(LedgerError)
        -> ProductWriteOutcome

    /// Every version of a product's contents, sorted by content, publication time and version.
    func catalogVersions(productId: String) async throws(LedgerError) -> [CatalogVersion]

    /// Records a version in `state` (`staged` for a publisher's upload, `published` for the start-up import;
    /// a published one is activated at its publication time). The same pack at the same version is the same
    /// record: nothing changes. A content id names one product's content.
    func addVersion(
        _ version: ContentVersion, state: VersionState, now: Int64
    ) async throws(LedgerError)
        -> AddVersionOutcome

    /// Publishes a version of a content with `release` atomically (`PublishPlan`): in full it becomes current
    /// (or scheduled) and the one it replaces is superseded, publishing an older version being a rollback; as a
    /// rollout or to beta it is offered beside the current version. Raising, halting and promoting a release are
    /// publishes of the same version with another release.
    func publishVersion(
        productId: String, contentId: String, version: String, release: VersionRelease, now: Int64
    ) async throws(LedgerError)
        -> PublishOutcome

    /// Deletes a version that was never published.
    func deleteVersion(
        productId: String, contentId: String, version: String
    ) async throws(LedgerError)
        -> DeleteVersionOutcome

    /// Records a delta bundle; false when it was already recorded (then nothing changes).
    func recordDelta(_ delta: DeltaBundle) async throws(LedgerError) -> Bool
}

extension CatalogLedger {
    /// Publishes a version of a content in full (`publishVersion(productId:contentId:version:release:now:)`).
    package func publishVersion(
        productId: String, contentId: String, version: String, now: Int64
    ) async throws(LedgerError) -> PublishOutcome {
        try await publishVersion(productId: productId, contentId: contentId, version: version, release: .full, now: now)
    }
}
