/// The body of `POST /v1/restore`: the purchases the app holds, from either store or both.
public struct RestoreRequest: Sendable, Equatable, Codable {
    /// Every App Store signed transaction the app holds (StoreKit's `Transaction.currentEntitlements`); empty
    /// when absent.
    public var signedTransactions: [String]
    /// Every Google Play purchase the app holds (Play Billing's `queryPurchasesAsync`); empty when absent.
    public var googlePlayPurchases: [GooglePlayPurchase]
    /// A StoreKit 1 app's receipt (standard base64): its non-consumable and subscription purchases are restored.
    public var appReceipt: String?
    /// With ``appReceipt``: the device's `identifierForVendor` (a UUID); the receipt must have been issued to it.
    public var deviceId: String?
    /// What the app already has installed (sent along; a restore answers with whole bundles).
    public var installed: [InstalledContent]?
    /// The app's own account identity, as in `RedeemRequest`.
    public var appAccountToken: String?
    /// An account assertion: a compact JWS (ES256) the studio's backend signed for the player it authenticated,
    /// whose `sub` is the account UUID the app set at purchase (Google Play's `obfuscatedAccountId`, StoreKit's
    /// `appAccountToken`). With it the restore also lists what the ledger holds for that account, history included.
    public var accountAssertion: String?

    /// A restore request.
    public init(
        signedTransactions: [String], googlePlayPurchases: [GooglePlayPurchase] = [], installed: [InstalledContent]? = nil,
        appAccountToken: String? = nil
    ) {
        self.signedTransactions = signedTransactions
        self.googlePlayPurchases = googlePlayPurchases
        self.installed = installed
        self.appAccountToken = appAccountToken
    }

    private enum CodingKeys: String, CodingKey {
        case signedTransactions, googlePlayPurchases, installed, appAccountToken, appReceipt, deviceId, accountAssertion
    }

    /// A restore request for a StoreKit 1 app: what its receipt holds, and the device's `identifierForVendor` when
    /// given.
    public init(
        appReceipt: String, deviceId: String? = nil, installed: [InstalledContent]? = nil, appAccountToken: String? = nil
    ) {
        self.signedTransactions = []
        self.googlePlayPurchases = []
        self.appReceipt = appReceipt
        self.deviceId = deviceId
        self.installed = installed
        self.appAccountToken = appAccountToken
    }

    /// A restore by account: what the ledger holds for the account `accountAssertion` proves.
    public init(accountAssertion: String, installed: [InstalledContent]? = nil) {
        self.signedTransactions = []
        self.googlePlayPurchases = []
        self.accountAssertion = accountAssertion
        self.installed = installed
    }

    /// Decodes a restore; any of the four sources may be left out, not all: a body naming none (`{}`, or only
    /// unknown fields) is refused (400 `bad-request`) rather than answered as a restore of nothing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard
            container.contains(.signedTransactions) || container.contains(.googlePlayPurchases)
                || container.contains(.appReceipt) || container.contains(.accountAssertion)
        else {
            throw DepotError.badRequest(
                "a restore names \"signedTransactions\" (App Store), \"googlePlayPurchases\" (Google Play), "
                    + "\"appReceipt\" (a StoreKit 1 app's receipt), even empty, or \"accountAssertion\" (an account)")
        }
        signedTransactions = try container.decodeIfPresent([String].self, forKey: .signedTransactions) ?? []
        googlePlayPurchases = try container.decodeIfPresent([GooglePlayPurchase].self, forKey: .googlePlayPurchases) ?? []
        installed = try container.decodeIfPresent([InstalledContent].self, forKey: .installed)
        appAccountToken = try container.decodeIfPresent(String.self, forKey: .appAccountToken)
        appReceipt = try container.decodeIfPresent(String.self, forKey: .appReceipt)
        deviceId = try container.decodeIfPresent(String.self, forKey: .deviceId)
        accountAssertion = try container.decodeIfPresent(String.self, forKey: .accountAssertion)
    }
}
