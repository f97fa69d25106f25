import DepotCore
import DepotLedger
import DepotServices
import DepotTestSupport
import DepotTrust
import Foundation
import Logging
import Synchronization
import Testing

/// Pre-orders: a one-time product bought before its only version is released (a Play pre-order, or an App Store
/// pre-order) is redeemed with no downloads and the time they come, cannot be finished with nothing delivered,
/// and delivers from its release on; over a real SQLite ledger and a clock the test moves.
@Suite("Pre-orders")
struct PreOrderTests {
    static let saga = "com.example.saga"
    static let pack = "com.example.pack"
    static let sagaVersion = ContentVersion(
        productId: saga, contentId: "saga", version: "1.0", publishedAt: 5_000, digest: .repeating("5"), size: 50,
        unpackedSize: 60)
    static let packVersion = ContentVersion(
        productId: pack, contentId: "pack", version: "1.0", publishedAt: 5_000, digest: .repeating("6"), size: 10,
        unpackedSize: 20)
    static let levelsVersion = ContentVersion(
        productId: "com.example.levels", contentId: "levels", version: "1.0", publishedAt: 1_000, digest: .repeating("a"),
        size: 100, unpackedSize: 200)

    @Test func aPreOrderWaitsForItsReleaseAndIsNeverFinishedWithNothing() async throws {
        let directory = NSTemporaryDirectory() + "depot-services-preorder-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ledger = try await SQLiteLedger.open(path: directory + "/ledger.sqlite")
        let catalog = Catalog(
            products: [
                Product(id: Self.saga, type: .nonConsumable, title: "Saga"), Product(id: Self.pack, type: .consumable, title: "Pack"),
                Product(id: "com.example.levels", type: .nonConsumable, title: "Levels"),
            ],
            versions: [Self.sagaVersion, Self.packVersion, Self.levelsVersion])
        let now = Mutex<Int64>(4_000)
        let context = DeliveryContext(
            ledger: ledger, catalogs: try CatalogHolder(catalog: catalog, revision: 1, now: 4_000),
            grants: try GrantAuthority(keys: [try GrantKey(id: "k", secret: Array(repeating: 7, count: 32))], activeKeyId: "k"),
            grantLifetime: 600, revocations: RevocationList(), purges: .disabled(logger: Logger(label: "test")),
            clock: { now.withLock { $0 } }, logger: Logger(label: "test"))
        let policy = IrregularActivityPolicy(windowSeconds: 3600, maxAccountTokens: 3, maxClientAddresses: 3, slowDownSeconds: 60)
        let redemption = RedemptionFlow(context: context, policy: policy)
        let finishing = FinishFlow(context: context, storeFinishMode: { _ in .app })
        func redeem(_ id: String, _ productId: String) async throws -> RedemptionFlow.Result {
            try await redemption.redeem(
                .init(
                    purchase: VerifiedPurchase(
                        store: .googlePlay,
                        transaction: PurchaseTransaction(
                            id: id, originalId: id, productId: productId, purchaseDate: 3_900_000, environment: "Production")),
                    installed: [:], callerAccount: nil, client: "192.0.2.1"))
        }

        // Before the release: no downloads, the time they come, and no finish with nothing delivered.
        let early = try await redeem("GPA.1", Self.saga)
        #expect(early.downloads.isEmpty && early.availableFrom == 5_000)
        await #expect(throws: DeliveryError.nothingDelivered) {
            try await finishing.finish(.init(transactionId: "GPA.1", finishToken: early.finishToken, delivered: []))
        }
        let consumable = try await redeem("GPA.2", Self.pack)
        #expect(consumable.downloads.isEmpty && consumable.availableFrom == 5_000)
        await #expect(throws: DeliveryError.nothingDelivered) {
            try await finishing.finish(.init(transactionId: "GPA.2", finishToken: consumable.finishToken, delivered: []))
        }
        // A released product says nothing of the kind.
        #expect(try await redeem("GPA.3", "com.example.levels").availableFrom == nil)
        #expect(try await ledger.transaction(id: "GPA.1")?.state == .pending)

        // From the release on, the same purchase delivers and finishes.
        now.withLock { $0 = 5_000 }
        let released = try await redeem("GPA.1", Self.saga)
        #expect(released.downloads.map(\.digest) == [Self.sagaVersion.digest] && released.availableFrom == nil)
        let finished = try await finishing.finish(
            .init(
                transactionId: "GPA.1", finishToken: released.finishToken,
                delivered: [ConfirmedDelivery(contentId: "saga", digest: Self.sagaVersion.digest)]))
        #expect(finished.transaction.state == .finished)
    }
}
