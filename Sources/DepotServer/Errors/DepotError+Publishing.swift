import DepotAPI
import DepotCore
import DepotLedger
import DepotServices

extension DepotError {
    /// The answer to a publisher's refused change: its code from the table, and a sentence for the publisher.
    init(_ error: PublishingError) {
        switch error {
        case .unknownProduct(let productId):
            self.init(.unknownProduct, "no product \(productId) in the catalog")
        case .unknownVersion(let contentId, let version):
            self.init(.unknownVersion, "no version \(version) of \(contentId)")
        case .ambiguousVersion(let productId, let version, let contents):
            self.init(
                .ambiguousVersion,
                "several contents of \(productId) have version \(version) (\(contents.joined(separator: ", "))); add ?contentId=")
        case .versionFailed(let contentId, let version):
            self.init(.versionFailed, "version \(version) of \(contentId) failed and cannot be published")
        case .releaseRefused(let contentId, let version, let refusal):
            switch refusal {
            case .nothingToRollOutFrom:
                self.init(
                    .rolloutWithoutCurrent,
                    "\(contentId) has no version current for everyone to roll \(version) out from; publish one in full first")
            case .rolloutNotNewer(let current):
                self.init(
                    .rolloutNotNewer,
                    "version \(version) of \(contentId) is not newer than the current \(current); roll back in full instead")
            case .rolloutShrinks(let percent):
                self.init(
                    .rolloutShrinks,
                    "version \(version) of \(contentId) already rolls out to \(percent)%; a rollout only grows (halt it or roll back)")
            case .notRollingOut:
                self.init(.notRollingOut, "version \(version) of \(contentId) does not roll out to part of the buyers")
            case .unknownVersion:
                self.init(.unknownVersion, "no version \(version) of \(contentId)")
            case .failedVersion:
                self.init(.versionFailed, "version \(version) of \(contentId) failed and cannot be published")
            }
        case .notBeta(let contentId, let version):
            self.init(.versionNotBeta, "version \(version) of \(contentId) is not published to the beta channel")
        case .versionWasPublished(let contentId, let version):
            self.init(
                .versionWasPublished,
                "version \(version) of \(contentId) was published; published versions are kept (grants for them keep working)")
        case .typeLocked(let existing):
            let terms = existing.type.rawValue + (existing.periodDays.map { " of \($0) days" } ?? "")
            self.init(
                .productTypeLocked,
                "product \(existing.id) has versions or transactions, so it stays \(terms); "
                    + "only its title may change (create a new product for other terms)")
        case .versionInProgress(let productId, let live):
            self.init(
                .versionInProgress,
                "version \(live.version) of \(productId) is already being processed (job \(live.id), "
                    + "\(live.state.rawValue)); wait for it to be staged or to fail")
        case .unavailable:
            self.init(.unavailable, "the catalog cannot be changed right now; try again")
        }
    }
}
