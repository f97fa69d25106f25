import DepotTestSupport
import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: the catalog in the ledger (products, versions and their states, deltas, the revision) on
/// both engines.
@Suite struct LedgerCatalogTests {
    static let level = CatalogProduct(id: "com.example.level1", type: .nonConsumable, title: "Level 1")
    static let monthly = CatalogProduct(id: "com.example.monthly", type: .autoRenewable, title: "Monthly")

    static func version(
        _ version: String, product: String = level.id, content: String? = nil, publishedAt: Int64 = 1_000, digest: Character = "a"
    ) -> ContentVersion {
        ContentVersion(
            productId: product, contentId: content ?? product, version: version, publishedAt: publishedAt,
            digest: Sample.digest(digest), size: 100, unpackedSize: 200)
    }

    static func states(_ ledger: any Ledger, _ product: String = level.id) async throws -> [String: VersionState] {
        Dictionary(uniqueKeysWithValues: try await ledger.catalogVersions(productId: product).map { ($0.content.version, $0.state) })
    }

    @Test(arguments: Engine.tested)
    func productsAreCreatedUpdatedAndKeptByTheImport(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            #expect(try await ledger.catalogRevision() == 0)
            #expect(try await ledger.writeProduct(Self.level, keepExisting: true, now: 10) == .created)
            #expect(try await ledger.catalogRevision() == 1)
            #expect(try await ledger.writeProduct(Self.level, keepExisting: false, now: 20) == .unchanged)
            #expect(try await ledger.catalogRevision() == 1)

            var renamed = Self.level
            renamed.title = "Level 1: The Caves"
            #expect(try await ledger.writeProduct(renamed, keepExisting: false, now: 30) == .updated)
            #expect(try await ledger.catalogRevision() == 2)
            #expect(try await ledger.catalogProduct(id: Self.level.id) == renamed)
            // The start-up import never overwrites a publisher's edit.
            #expect(try await ledger.writeProduct(Self.level, keepExisting: true, now: 40) == .kept(renamed))
            #expect(try await ledger.catalogProduct(id: Self.level.id) == renamed)
            #expect(try await ledger.catalogRevision() == 2)

            let tickets = CatalogProduct(id: "com.example.pass", type: .nonRenewing, title: "Pass", periodDays: 30)
            #expect(try await ledger.writeProduct(tickets, keepExisting: false, now: 50) == .created)
            let snapshot = try await ledger.catalogSnapshot()
            #expect(snapshot.products == [renamed, tickets])
            #expect(snapshot.changedAt == 50)
            #expect(snapshot.catalog().product(id: "com.example.pass")?.periodSeconds == Int64(30 * 86_400))
            #expect(try await ledger.catalogProduct(id: "com.example.none") == nil)
        }
    }

    @Test(arguments: Engine.tested)
    func theSamePackIsTheSameRecordAndAChangedOneIsRefused(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            #expect(try await ledger.addVersion(Self.version("1.0"), state: .published, now: 5) == .unknownProduct)
            _ = try await ledger.writeProduct(Self.level, keepExisting: true, now: 5)
            _ = try await ledger.writeProduct(Self.monthly, keepExisting: true, now: 5)
            let revision = try await ledger.catalogRevision()

            guard case .added(let added) = try await ledger.addVersion(Self.version("1.0"), state: .published, now: 7) else {
                Issue.record("not added")
                return
            }
            #expect(added.state == .published)
            #expect(added.activatedAt == 1_000)
            #expect(try await ledger.catalogRevision() == revision + 1)

            #expect(try await ledger.addVersion(Self.version("1.0"), state: .published, now: 9) == .unchanged(added))
            #expect(try await ledger.catalogRevision() == revision + 1)
            #expect(try await ledger.addVersion(Self.version("1.0", digest: "b"), state: .published, now: 9) == .conflict(existing: added))
            #expect(
                try await ledger.addVersion(Self.version("1.0", publishedAt: 2_000), state: .staged, now: 9) == .conflict(existing: added))
            // A content id names one product's content.
            #expect(
                try await ledger.addVersion(Self.version("2.0", product: Self.monthly.id, content: Self.level.id), state: .staged, now: 9)
                    == .contentOwnedByOtherProduct(Self.level.id))
            #expect(try await ledger.catalogRevision() == revision + 1)
            #expect(try await ledger.catalogVersions(productId: Self.level.id) == [added])
        }
    }

    @Test(arguments: Engine.tested)
    func publishingSupersedesTheCurrentVersionAndRollsBack(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.writeProduct(Self.level, keepExisting: true, now: 5)
            _ = try await ledger.addVersion(Self.version("1.0", publishedAt: 1_000, digest: "a"), state: .published, now: 5)
            _ = try await ledger.addVersion(Self.version("1.1", publishedAt: 2_000, digest: "b"), state: .staged, now: 5)
            let staged = try await ledger.catalogSnapshot()
            #expect(staged.catalog().versions.map(\.version) == ["1.0"])
            #expect(staged.catalog().version(digest: Sample.digest("b")) == nil)

            guard
                case .published(let published, let rollback, let changed) =
                    try await ledger.publishVersion(productId: Self.level.id, contentId: Self.level.id, version: "1.1", now: 3_000)
            else {
                Issue.record("not published")
                return
            }
            #expect(published.state == .published && published.activatedAt == 3_000)
            #expect(!rollback && changed)
            #expect(try await Self.states(ledger) == ["1.0": .superseded, "1.1": .published])
            let after = try await ledger.catalogSnapshot()
            #expect(after.revision == staged.revision + 1)
            #expect(after.changedAt == 3_000)
            #expect(after.catalog().currentContents(of: Self.level.id, at: 3_000).map(\.version) == ["1.1"])
            // The superseded version is still served by digest.
            #expect(after.catalog().version(digest: Sample.digest("a"))?.version == "1.0")

            // Publishing the current version again changes nothing.
            guard
                case .published(_, _, let again) =
                    try await ledger.publishVersion(productId: Self.level.id, contentId: Self.level.id, version: "1.1", now: 3_500)
            else {
                Issue.record("not published")
                return
            }
            #expect(!again)
            #expect(try await ledger.catalogRevision() == after.revision)

            guard
                case .published(_, let back, _) =
                    try await ledger.publishVersion(productId: Self.level.id, contentId: Self.level.id, version: "1.0", now: 4_000)
            else {
                Issue.record("not rolled back")
                return
            }
            #expect(back)
            #expect(try await Self.states(ledger) == ["1.0": .published, "1.1": .superseded])
            let rolledBack = try await ledger.catalogSnapshot().catalog()
            #expect(rolledBack.currentContents(of: Self.level.id, at: 4_000).map(\.version) == ["1.0"])
            #expect(rolledBack.lastPublishedAt(at: 4_000) == 4_000)

            #expect(
                try await ledger.publishVersion(productId: Self.level.id, contentId: Self.level.id, version: "9.9", now: 5_000)
                    == .unknownVersion)
        }
    }

    @Test(arguments: Engine.tested)
    func onlyANeverPublishedVersionIsDeleted(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.writeProduct(Self.level, keepExisting: true, now: 5)
            _ = try await ledger.addVersion(Self.version("1.0", digest: "a"), state: .published, now: 5)
            _ = try await ledger.addVersion(Self.version("1.1", publishedAt: 2_000, digest: "b"), state: .staged, now: 5)
            _ = try await ledger.addVersion(Self.version("1.2", publishedAt: 3_000, digest: "c"), state: .staged, now: 5)
            _ = try await ledger.publishVersion(productId: Self.level.id, contentId: Self.level.id, version: "1.1", now: 2_500)
            _ = try await ledger.publishVersion(productId: Self.level.id, contentId: Self.level.id, version: "1.0", now: 2_600)

            for version in ["1.0", "1.1"] {
                #expect(
                    try await ledger.deleteVersion(productId: Self.level.id, contentId: Self.level.id, version: version) == .wasPublished)
            }
            let revision = try await ledger.catalogRevision()
            #expect(try await ledger.deleteVersion(productId: Self.level.id, contentId: Self.level.id, version: "1.2") == .deleted)
            #expect(try await ledger.catalogRevision() == revision + 1)
            #expect(try await ledger.deleteVersion(productId: Self.level.id, contentId: Self.level.id, version: "1.2") == .unknownVersion)
            #expect(try await Self.states(ledger) == ["1.0": .published, "1.1": .superseded])
        }
    }

    @Test(arguments: Engine.tested)
    func deltasAreRecordedOnce(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            let delta = DeltaBundle(
                productId: Self.level.id, contentId: Self.level.id, baseVersion: "1.0", targetVersion: "1.1",
                digest: Sample.digest("d"), size: 10)
            let first = try await ledger.recordDelta(delta)
            #expect(first)
            let revision = try await ledger.catalogRevision()
            #expect(revision == 1)
            let again = try await ledger.recordDelta(delta)
            #expect(!again)
            let unchanged = try await ledger.catalogRevision()
            #expect(unchanged == 1)
            let deltas = try await ledger.catalogSnapshot().deltas
            #expect(deltas == [delta])
        }
    }

    @Test(arguments: Engine.tested)
    func aChangeThroughOneLedgerIsSeenThroughAnother(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { fixture, first in
            let second = try await fixture.open()
            _ = try await first.writeProduct(Self.level, keepExisting: false, now: 5)
            #expect(try await second.catalogRevision() == 1)
            #expect(try await second.catalogSnapshot().products == [Self.level])
            #expect(try await fixture.appliedMigrations(second).contains { $0.hasSuffix("catalog") } == true)
        }
    }
}
