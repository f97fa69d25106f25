import DepotCore
import DepotLedger
import Testing

@testable import DepotServices

/// Which versions a delta is built from: a production version's deltas come only from versions released in
/// production (a beta base would name the beta's files in `RemovedPaths`), a beta version's from any version apps
/// may hold.
@Suite("Delta bases")
struct DeltaBasesTests {
    static func record(_ version: String, at time: Int64, _ state: VersionState, _ release: VersionRelease) -> CatalogVersion {
        CatalogVersion(
            content: ContentVersion(
                productId: "p", contentId: "p", version: version, publishedAt: time,
                digest: BundleDigest(hex: String(repeating: "a", count: 64))!, size: 1, unpackedSize: 1),
            state: state, stagedAt: time, release: release)
    }

    static let versions = [
        record("1.0", at: 100, .superseded, .full),
        record("1.1", at: 110, .published, .full),
        record("1.2-beta", at: 120, .published, .beta),
        record("1.3-beta", at: 130, .superseded, .beta),
        record("1.4", at: 140, .staged, .full),
        record("2.0", at: 200, .published, .full),
    ]

    @Test func aProductionTargetTakesOnlyProductionBases() {
        let target = Self.versions[5].content
        let bases = DeltaBases.choose(for: target, in: .production, among: Self.versions, count: 3)
        #expect(bases.map(\.version) == ["1.1", "1.0"])
    }

    @Test func aBetaTargetTakesAnyPublishedBase() {
        let target = Self.record("2.1-beta", at: 210, .published, .beta).content
        let bases = DeltaBases.choose(for: target, in: .beta, among: Self.versions, count: 3)
        #expect(bases.map(\.version) == ["2.0", "1.3-beta", "1.2-beta"])
    }
}
