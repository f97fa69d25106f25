/// One bundle the server offers for download.
public struct Download: Sendable, Equatable, Codable {
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

    /// An offer.
    public init(
        contentId: String, version: String, size: Int64, digest: String, url: String, grantExpiresAt: String,
        baseVersion: String? = nil
    ) {
        self.contentId = contentId
        self.version = version
        self.size = size
        self.digest = digest
        self.url = url
        self.grantExpiresAt = grantExpiresAt
        self.baseVersion = baseVersion
    }

    /// Decodes an offer; a negative `size` is refused (no bundle has one, and a download's arithmetic
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
