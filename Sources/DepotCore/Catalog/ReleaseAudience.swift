/// Who is asking for a product's contents, as far as releases care: which buyer (for a rollout's share), whether
/// the purchase is a test one (for the beta channel), and what the purchase already got (a halted rollout keeps
/// it).
public struct ReleaseAudience: Sendable, Equatable {
    /// Who the buyer is: the app account token when there is one, else the original transaction id, so that a
    /// subscription's renewals and every device of one account land in one place.
    public var buyer: String
    /// Whether the purchase is a test one: offered beta versions.
    public var isTest: Bool
    /// Bundles earlier redeems offered this purchase.
    public var offered: Set<BundleDigest>
    /// The version the app has installed, by content id.
    public var installed: [String: String]

    /// An audience.
    public init(buyer: String, isTest: Bool, offered: Set<BundleDigest> = [], installed: [String: String] = [:]) {
        self.buyer = buyer
        self.isTest = isTest
        self.offered = offered
        self.installed = installed
    }

    /// The audience of `transaction`: the buyer is `account` (the app account token in force) when given, else the
    /// transaction's original id; a purchase outside the `Production` environment is a test one.
    public init(
        _ transaction: PurchaseTransaction, account: String?, offered: Set<BundleDigest> = [], installed: [String: String] = [:]
    ) {
        self.init(
            buyer: account.map { "account:" + $0 } ?? "transaction:" + transaction.originalId,
            isTest: transaction.environment != "Production", offered: offered, installed: installed)
    }

    /// Whether `version`, released as `release`, is offered to this audience.
    public func receives(_ version: ContentVersion, as release: VersionRelease) -> Bool {
        let has = offered.contains(version.digest) || installed[version.contentId] == version.version
        switch release.channel {
        case .beta:
            return isTest
        case .production:
            if has { return true }
            if release.halted { return false }
            return RolloutBucket.isWithin(
                percent: release.percent, contentId: version.contentId, version: version.version, buyer: buyer)
        }
    }
}
