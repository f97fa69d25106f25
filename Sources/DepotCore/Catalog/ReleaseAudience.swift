/// Who is asking for a product's contents, as far as releases care: which buyer (for a rollout's share), whether
/// the purchase is a test one (for the beta channel), and what the purchase already got (a halted rollout keeps
/// it). Every part comes from signed data or the ledger, never from what the app claims: a buyer who could name
/// their bucket, or claim to hold a version, could steer a rollout or take a halted one's version.
public struct ReleaseAudience: Sendable, Equatable {
    /// Who the buyer is: the signed app account token when there is one, else the original transaction id, so that
    /// a subscription's renewals and every device of one account land in one place.
    public var buyer: String
    /// Whether the purchase is a test one: offered beta versions.
    public var isTest: Bool
    /// Bundles earlier redeems offered this purchase (as the ledger recorded them).
    public var offered: Set<BundleDigest>

    /// An audience.
    public init(buyer: String, isTest: Bool, offered: Set<BundleDigest> = []) {
        self.buyer = buyer
        self.isTest = isTest
        self.offered = offered
    }

    /// The audience of `transaction`: the buyer is its signed app account token when it has one, else its original
    /// id; a purchase outside the `Production` environment is a test one.
    public init(_ transaction: PurchaseTransaction, offered: Set<BundleDigest> = []) {
        self.init(
            buyer: transaction.appAccountToken.map { "account:" + $0.lowercased() } ?? "transaction:" + transaction.originalId,
            isTest: transaction.environment != "Production", offered: offered)
    }

    /// Whether `version`, released as `release`, is offered to this audience.
    public func receives(_ version: ContentVersion, as release: VersionRelease) -> Bool {
        let has = offered.contains(version.digest)
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
