/// The delivery rule: a transaction stays pending until the app has confirmed every content that a redeem
/// offered it, each with the digest of a bundle it was offered for that content (the full bundle of any
/// offered version, or an offered delta). Pure: the ledger stores the offers, the service asks this rule.
///
/// Judged against what was offered, never against the catalog of the moment: a version published between
/// redeem and finish does not make a correct confirmation fail, and a digest never offered for a content
/// (another content's bundle, a delta over another base) does not confirm it.
public enum DeliveryConfirmation {
    /// One bundle a redeem offered for a content.
    public struct Offer: Sendable, Hashable {
        /// The content.
        public var contentId: String
        /// The version the bundle installs.
        public var version: String
        /// The bundle's digest (a full bundle's or a delta's).
        public var digest: BundleDigest

        /// Creates an offer.
        public init(contentId: String, version: String, digest: BundleDigest) {
            self.contentId = contentId
            self.version = version
            self.digest = digest
        }
    }

    /// One content the app says it received, with the digest it checked.
    public struct Claim: Sendable, Hashable {
        /// The content.
        public var contentId: String
        /// The digest the app checked.
        public var digest: BundleDigest

        /// Creates a claim.
        public init(contentId: String, digest: BundleDigest) {
            self.contentId = contentId
            self.digest = digest
        }
    }

    /// The answer to a confirmation.
    public enum Verdict: Sendable, Equatable {
        /// Every offered content is confirmed; the offers it confirms, one per content, sorted by content id.
        case complete([Offer])
        /// Some offered content is not confirmed (`missing`) or only with digests never offered for it
        /// (`wrongDigest`); both sorted.
        case incomplete(missing: [String], wrongDigest: [String])
        /// Nothing was ever offered, and the purchase requires a delivery before it may finish (a consumable, or a
        /// purchase that entitles content which was not offered).
        case nothingOffered
    }

    /// Judges the app's claims against every offer recorded for the transaction.
    ///
    /// - Parameter requiresDelivery: true for purchases that must never finish with nothing delivered: consumables,
    ///   and any purchase that entitles content (content that exists but was not offered, say because the instance
    ///   could not serve its bundle, was not delivered); a purchase with nothing to deliver (a subscription period
    ///   without issues, a product without content) finishes.
    public static func judge(offered: [Offer], claims: [Claim], requiresDelivery: Bool) -> Verdict {
        guard !offered.isEmpty else { return requiresDelivery ? .nothingOffered : .complete([]) }
        let claimed = Dictionary(grouping: claims, by: \.contentId).mapValues { Set($0.map(\.digest)) }
        let offersByContent = Dictionary(grouping: Set(offered), by: \.contentId)
        var confirmed: [Offer] = []
        var missing: [String] = []
        var wrongDigest: [String] = []
        for contentId in offersByContent.keys.sorted() {
            guard let digests = claimed[contentId] else {
                missing.append(contentId)
                continue
            }
            let matching = offersByContent[contentId]!.filter { digests.contains($0.digest) }
            guard let offer = matching.max(by: { ($0.version, $0.digest) < ($1.version, $1.digest) }) else {
                wrongDigest.append(contentId)
                continue
            }
            confirmed.append(offer)
        }
        guard missing.isEmpty, wrongDigest.isEmpty else { return .incomplete(missing: missing, wrongDigest: wrongDigest) }
        return .complete(confirmed)
    }
}
