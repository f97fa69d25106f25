import DepotTestSupport
import DepotCore
import DepotLedger
import DepotServices
import DepotTrust
import Foundation
import Logging

/// The delivery flows over a real SQLite ledger in a scratch folder, a two-product catalog and a clock the test
/// reads: no HTTP, no server, no store (the purchases are built as a store's verifier would hand them over).
struct DeliveryFlowFixture {
    static let levels = "com.example.levels"
    static let coins = "com.example.coins"
    static let levelsVersion = ContentVersion(
        productId: levels, contentId: "levels", version: "1.0", publishedAt: 1_000, digest: .repeating("a"),
        size: 100, unpackedSize: 200)
    static let coinsVersion = ContentVersion(
        productId: coins, contentId: "coins", version: "1.0", publishedAt: 1_000, digest: .repeating("c"),
        size: 10, unpackedSize: 20)

    let directory: String
    let ledger: SQLiteLedger
    let context: DeliveryContext
    let policy = IrregularActivityPolicy(windowSeconds: 3600, maxAccountTokens: 3, maxClientAddresses: 3, slowDownSeconds: 60)

    /// A fixture in a scratch folder named after the test; `remove()` deletes it.
    static func make(_ name: String = #function) async throws -> DeliveryFlowFixture {
        let directory = NSTemporaryDirectory() + "depot-services-\(name.filter(\.isLetter))-\(UUID().uuidString)"
        let ledger = try await SQLiteLedger.open(path: directory + "/ledger.sqlite")
        let catalog = Catalog(
            products: [
                Product(id: levels, type: .nonConsumable, title: "Levels"), Product(id: coins, type: .consumable, title: "Coins"),
            ],
            versions: [levelsVersion, coinsVersion])
        let now = Int64(Date().timeIntervalSince1970)
        let context = DeliveryContext(
            ledger: ledger, catalogs: try CatalogHolder(catalog: catalog, revision: 1, now: now),
            grants: try GrantAuthority(keys: [try GrantKey(id: "k", secret: Array(repeating: 7, count: 32))], activeKeyId: "k"),
            grantLifetime: 600, revocations: RevocationList(), purges: .disabled(logger: Logger(label: "test")),
            clock: { Int64(Date().timeIntervalSince1970) }, logger: Logger(label: "test"))
        return DeliveryFlowFixture(directory: directory, ledger: ledger, context: context)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A purchase of `productId` as the App Store's verifier would hand it over.
    static func purchase(_ id: String, of productId: String) -> VerifiedPurchase {
        VerifiedPurchase(
            store: .appStore,
            transaction: PurchaseTransaction(
                id: id, originalId: id, productId: productId, purchaseDate: 1_000_000, environment: "Production"))
    }

    var redemption: RedemptionFlow { RedemptionFlow(context: context, policy: policy) }
    var restoring: RestoreFlow { RestoreFlow(context: context, policy: policy) }

    /// A finish flow whose store finishes nothing itself.
    var finishing: FinishFlow { FinishFlow(context: context, storeFinishMode: { _ in .app }) }

    /// Redeems `purchase` from one address.
    func redeem(_ purchase: VerifiedPurchase, account: String? = nil) async throws(DeliveryError) -> RedemptionFlow.Result {
        try await redemption.redeem(
            .init(purchase: purchase, installed: [:], callerAccount: try AccountToken.parse(account), client: "192.0.2.1"))
    }
}
