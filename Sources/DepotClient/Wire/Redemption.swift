/// A content version an app already has, so that the server may offer a delta instead of the whole bundle.
public struct InstalledContent: Sendable, Equatable, Codable {
    /// The content identifier.
    public var contentId: String
    /// The version installed.
    public var version: String

    /// Creates an installed version.
    public init(contentId: String, version: String) {
        self.contentId = contentId
        self.version = version
    }
}

/// A transaction as the server records it.
public struct RedeemedTransaction: Sendable, Equatable, Decodable {
    /// The App Store transaction identifier.
    public var id: String
    /// The original transaction identifier.
    public var originalId: String
    /// The product bought.
    public var productId: String
    /// `pending` until delivery was confirmed, then `finished`.
    public var state: String
    /// The proof `finish` needs; present in answers to redeem and restore.
    public var finishToken: String?
}

/// One bundle the server offers for download.
public struct Download: Sendable, Equatable, Decodable {
    /// The content identifier.
    public var contentId: String
    /// The version the content is at once this bundle is installed.
    public var version: String
    /// The bundle's size in bytes.
    public var size: Int64
    /// The bundle's sha256, lowercase hex: its name, URL and strong ETag.
    public var digest: String
    /// The bundle's address (relative to the server), carrying a short-lived grant.
    public var url: String
    /// When the grant in `url` expires (ISO 8601).
    public var grantExpiresAt: String
    /// For a delta bundle, the version it applies over; nil for a whole bundle.
    public var baseVersion: String?

    /// Whether the bundle is a delta over an installed version.
    public var isDelta: Bool { baseVersion != nil }

    /// Decodes an offer; a negative `size` is refused (no bundle has one, and the download's arithmetic
    /// counts on a size from 0 to `Int64.max`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        contentId = try container.decode(String.self, forKey: .contentId)
        version = try container.decode(String.self, forKey: .version)
        size = try container.decode(Int64.self, forKey: .size)
        guard size >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .size, in: container, debugDescription: "a bundle size below zero")
        }
        digest = try container.decode(String.self, forKey: .digest)
        url = try container.decode(String.self, forKey: .url)
        grantExpiresAt = try container.decode(String.self, forKey: .grantExpiresAt)
        baseVersion = try container.decodeIfPresent(String.self, forKey: .baseVersion)
    }

    private enum CodingKeys: String, CodingKey {
        case contentId, version, size, digest, url, grantExpiresAt, baseVersion
    }
}

/// The answer to `POST /v1/transactions`: the transaction and the downloads it entitles.
public struct Redemption: Sendable, Equatable, Decodable {
    /// The transaction.
    public var transaction: RedeemedTransaction
    /// The bundles to download.
    public var downloads: [Download]
}

/// The answer to `POST /v1/restore`: the transactions that still entitle content, and their downloads.
public struct Restoration: Sendable, Equatable, Decodable {
    /// The transactions restored, each with its finish token.
    public var transactions: [RedeemedTransaction]
    /// The bundles to download, once each.
    public var downloads: [Download]
}

/// The answer to `POST /v1/transactions/{id}/finish`.
public struct FinishConfirmation: Sendable, Equatable, Decodable {
    /// The transaction, now `finished`.
    public var transaction: RedeemedTransaction
    /// True once the server recorded the delivery: the app may call StoreKit's `finish()` now.
    public var finishStoreKitTransaction: Bool
}

/// The body of `POST /v1/transactions`.
struct RedeemRequestBody: Encodable {
    var signedTransaction: String
    var installed: [InstalledContent]
    var appAccountToken: String?
}

/// The body of `POST /v1/restore`.
struct RestoreRequestBody: Encodable {
    var signedTransactions: [String]
    var installed: [InstalledContent]
    var appAccountToken: String?
}

/// The body of `POST /v1/transactions/{id}/finish`.
struct FinishRequestBody: Encodable {
    struct Delivered: Encodable {
        var contentId: String
        var digest: String
    }
    var finishToken: String
    var delivered: [Delivered]
}

/// The server's error body, `{"error": {"code", "message"}}`.
struct ErrorBody: Decodable {
    struct Detail: Decodable {
        var code: String
        var message: String
    }
    var error: Detail
}
