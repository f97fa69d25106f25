import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: the catalog a ledger hands the servers offers no delta from a beta version towards a production one,
/// on both engines. Such a delta names the beta's files in its `RemovedPaths`, and the public update preview would
/// tell from it whether a beta version string exists.
@Suite struct LedgerBetaDeltaTests {
    static let level = LedgerCatalogTests.level

    static func delta(_ base: String, _ target: String, _ digest: Character) -> DeltaBundle {
        DeltaBundle(
            productId: level.id, contentId: level.id, baseVersion: base, targetVersion: target, digest: Sample.digest(digest),
            size: 10)
    }

    @Test(arguments: Engine.tested)
    func aDeltaFromABetaVersionIsNeverOfferedTowardsProduction(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.writeProduct(Self.level, keepExisting: true, now: 5)
            let releases: [(String, Int64, Character, VersionRelease)] = [
                ("1.0", 1_000, "a", .full), ("1.1-beta", 1_100, "b", .beta), ("2.0", 1_200, "c", .full),
            ]
            for (version, time, digest, release) in releases {
                _ = try await ledger.addVersion(
                    LedgerCatalogTests.version(version, publishedAt: time, digest: digest), state: .staged, now: time)
                let outcome = try await ledger.publishVersion(
                    productId: Self.level.id, contentId: Self.level.id, version: version, release: release, now: time)
                guard case .published = outcome else { Issue.record("\(version): \(outcome)"); return }
            }
            #expect(try await ledger.recordDelta(Self.delta("1.0", "2.0", "d")))
            #expect(try await ledger.recordDelta(Self.delta("1.1-beta", "2.0", "e")))
            #expect(try await ledger.recordDelta(Self.delta("1.0", "1.1-beta", "f")))

            let catalog = try await ledger.catalogSnapshot().catalog()
            let offered = Set(catalog.deltas.map { "\($0.baseVersion)>\($0.targetVersion)" })
            // Towards the beta version (offered to test purchases only), a delta from production stays.
            #expect(offered == ["1.0>2.0", "1.0>1.1-beta"])
            #expect(catalog.delta(productId: Self.level.id, contentId: Self.level.id, from: "1.1-beta", to: "2.0") == nil)
            // The public preview answers a beta version as it answers any version a production buyer cannot hold.
            let fromBeta = try #require(catalog.updatePreview(productId: Self.level.id, contentId: nil, from: "1.1-beta", at: 2_000))
            let unknown = try #require(catalog.updatePreview(productId: Self.level.id, contentId: nil, from: "1.1-nothing", at: 2_000))
            #expect(fromBeta.kind == .full && fromBeta == unknown)
            #expect(catalog.updatePreview(productId: Self.level.id, contentId: nil, from: "1.0", at: 2_000)?.kind == .delta)
        }
    }
}
