import DepotCore
import Testing

@testable import DepotLedger

/// Conformance: a product's type and period are fixed once it has a version or a transaction (buyers keep
/// the terms they bought under), on both engines; its title may still change.
@Suite struct LedgerProductTermsTests {
    static let level = LedgerCatalogTests.level
    static let pass = CatalogProduct(id: "com.example.pass", type: .nonRenewing, title: "Pass", periodDays: 30)

    @Test(arguments: Engine.tested)
    func aProductWithAVersionKeepsItsTypeAndPeriod(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.writeProduct(Self.level, keepExisting: false, now: 10)
            _ = try await ledger.writeProduct(Self.pass, keepExisting: false, now: 10)
            // No version and no transaction yet: the terms may still change.
            var consumable = Self.level
            consumable.type = .consumable
            #expect(try await ledger.writeProduct(consumable, keepExisting: false, now: 20) == .updated)
            #expect(try await ledger.writeProduct(Self.level, keepExisting: false, now: 30) == .updated)

            // A staged version, never published, is enough.
            _ = try await ledger.addVersion(LedgerCatalogTests.version("1.0"), state: .staged, now: 40)
            let revision = try await ledger.catalogRevision()
            #expect(try await ledger.writeProduct(consumable, keepExisting: false, now: 50) == .typeLocked(Self.level))
            var renewing = Self.level
            renewing.type = .nonRenewing
            renewing.periodDays = 30
            #expect(try await ledger.writeProduct(renewing, keepExisting: false, now: 50) == .typeLocked(Self.level))
            #expect(try await ledger.catalogProduct(id: Self.level.id) == Self.level)
            #expect(try await ledger.catalogRevision() == revision)

            var renamed = Self.level
            renamed.title = "Level 1: The Caves"
            #expect(try await ledger.writeProduct(renamed, keepExisting: false, now: 60) == .updated)
            #expect(try await ledger.catalogProduct(id: Self.level.id) == renamed)
        }
    }

    @Test(arguments: Engine.tested)
    func aProductWithATransactionKeepsItsTypeAndPeriod(engine: Engine) async throws {
        try await LedgerFixture.with(engine) { _, ledger in
            _ = try await ledger.writeProduct(Self.pass, keepExisting: false, now: 10)
            _ = try await ledger.recordTransaction(Sample.transaction("1001", product: Self.pass.id), now: 20)
            var longer = Self.pass
            longer.periodDays = 365
            #expect(try await ledger.writeProduct(longer, keepExisting: false, now: 30) == .typeLocked(Self.pass))
            var nonConsumable = Self.pass
            nonConsumable.type = .nonConsumable
            nonConsumable.periodDays = nil
            #expect(try await ledger.writeProduct(nonConsumable, keepExisting: false, now: 30) == .typeLocked(Self.pass))
            #expect(try await ledger.catalogProduct(id: Self.pass.id) == Self.pass)

            var renamed = Self.pass
            renamed.title = "Season pass"
            #expect(try await ledger.writeProduct(renamed, keepExisting: false, now: 40) == .updated)
            #expect(try await ledger.catalogProduct(id: Self.pass.id) == renamed)
        }
    }
}
