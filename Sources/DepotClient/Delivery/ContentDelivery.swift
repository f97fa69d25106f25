import Foundation

/// The whole purchase delivery for one signed transaction: its downloads, each installed in a folder
/// named after its content under `directory`, then the finish.
///
/// ```swift
/// let delivery = try await client.delivery(of: jws, into: folder, installed: installed)
/// for download in delivery.downloads { watch(download.updates()) }
/// let outcome = try await delivery.run()
/// if outcome.finishStoreKitTransaction { await transaction.finish() }
/// ```
///
/// `run()` sends `finish` only after every bundle was verified and unpacked, and reports
/// `finishStoreKitTransaction` only from the server's 200. Running again after a failure (or in a new
/// process after a crash) resumes the partial files left beside the destinations.
public final class ContentDelivery: Sendable {
    /// The redeem answer this delivery works from.
    public let redemption: Redemption
    /// One download per bundle offered, in the server's order.
    public let downloads: [BundleDownload]
    private let client: DepotClient

    init(client: DepotClient, redemption: Redemption, downloads: [BundleDownload]) {
        self.client = client
        self.redemption = redemption
        self.downloads = downloads
    }

    /// Downloads, verifies and installs every bundle in turn, then confirms the delivery to the server.
    public func run() async throws(DepotClientError) -> DeliveryOutcome {
        var installed: [InstalledBundle] = []
        for download in downloads {
            let folder = try await download.run()
            let offered = download.download
            installed.append(
                InstalledBundle(contentId: offered.contentId, version: offered.version, digest: offered.digest, folder: folder))
        }
        let confirmation = try await client.finish(redemption.transaction, delivered: downloads.map(\.download))
        return DeliveryOutcome(
            transaction: confirmation.transaction, installed: installed,
            finishStoreKitTransaction: confirmation.finishStoreKitTransaction)
    }
}

/// A content put in place by a delivery.
public struct InstalledBundle: Sendable, Equatable {
    /// The content identifier.
    public var contentId: String
    /// The version now installed.
    public var version: String
    /// The digest of the bundle that was applied (a delta's, for a delta).
    public var digest: String
    /// The folder: `ContentInfo.plist` beside `Contents/`.
    public var folder: URL
}

/// What a delivery achieved.
public struct DeliveryOutcome: Sendable, Equatable {
    /// The transaction as the server now records it (`finished`).
    public var transaction: RedeemedTransaction
    /// The contents put in place.
    public var installed: [InstalledBundle]
    /// True when the server confirmed the delivery: call StoreKit's `finish()` now, not before.
    public var finishStoreKitTransaction: Bool
}

extension DepotClient {
    /// Redeems `signedTransaction` and prepares a download of each bundle it entitles into
    /// `directory/<contentId>`. Grants that expire on the way are renewed by redeeming again.
    public func delivery(
        of signedTransaction: String, into directory: URL, installed: [InstalledContent] = [], appAccountToken: UUID? = nil
    ) async throws(DepotClientError) -> ContentDelivery {
        try await delivery(
            of: .appStore(signedTransaction: signedTransaction), into: directory, installed: installed,
            appAccountToken: appAccountToken)
    }

    /// Redeems a purchase of either store and prepares its downloads, as
    /// `delivery(of:into:installed:appAccountToken:)` does for a signed transaction.
    public func delivery(
        of purchase: PresentedPurchase, into directory: URL, installed: [InstalledContent] = [], appAccountToken: UUID? = nil
    ) async throws(DepotClientError) -> ContentDelivery {
        let redemption = try await redeem(purchase, installed: installed, appAccountToken: appAccountToken)
        let renew: BundleDownload.Renewal = { [self] stale throws(DepotClientError) in
            let again = try await redeem(purchase, installed: installed, appAccountToken: appAccountToken)
            guard let fresh = again.downloads.first(where: { $0.digest == stale.digest }) else {
                throw DepotClientError(.bundleMismatch, "redeeming again no longer offers the bundle of \(stale.contentId)")
            }
            return fresh
        }
        var downloads: [BundleDownload] = []
        for offered in redemption.downloads {
            downloads.append(try bundleDownload(offered, into: directory, renew: renew))
        }
        return ContentDelivery(client: self, redemption: redemption, downloads: downloads)
    }

    /// A download of one offered bundle into `directory/<contentId>`; `renew` gives a fresh offer when
    /// the grant expires (for a restore, restore again).
    public func bundleDownload(
        _ offered: Download, into directory: URL, renew: BundleDownload.Renewal? = nil
    )
        throws(DepotClientError) -> BundleDownload
    {
        try Self.checkPathName(offered.contentId)
        guard offered.digest.count == 64, offered.digest.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw DepotClientError(.badResponse, "the server offered a bundle whose digest is not 64 lowercase hex digits")
        }
        return BundleDownload(
            client: self, download: offered, destination: directory.appendingPathComponent(offered.contentId, isDirectory: true),
            renew: renew)
    }

    /// The longest content id taken, in bytes, as the server's identifier rule says: with
    /// `.<digest>.partial.etag` (78 bytes) after it, the download's files stay within a file name's 255 bytes.
    static let maximumContentIdBytes = 128

    /// A content identifier becomes a folder name: it must be one plain path component.
    static func checkPathName(_ name: String) throws(DepotClientError) {
        guard !name.isEmpty, name.utf8.count <= maximumContentIdBytes, !name.hasPrefix("."), !name.contains("/"), !name.contains("\\"),
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw DepotClientError(.badResponse, "the server offered content \"\(name)\", which cannot be a folder name")
        }
    }
}
