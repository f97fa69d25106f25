import DepotCore

/// Column lists and row decoding the two engines share for the catalog tables.
enum CatalogRows {
    static let versionColumns =
        "product_id, content_id, version, digest, size, unpacked_size, published_at, state, failure_reason, staged_at, activated_at"
    static let versionOrder = "product_id, content_id, published_at, version"

    /// A version record from its columns in `versionColumns` order.
    static func version(
        productId: String, contentId: String, version: String, digest: String, size: Int64, unpackedSize: Int64,
        publishedAt: Int64, state: String, failureReason: String?, stagedAt: Int64, activatedAt: Int64?
    ) throws(LedgerError) -> CatalogVersion {
        guard let state = VersionState(rawValue: state) else {
            throw .corrupt("version \(version) of \(contentId) has the unknown state \(state)")
        }
        return CatalogVersion(
            content: ContentVersion(
                productId: productId, contentId: contentId, version: version, publishedAt: publishedAt, digest: digest,
                size: size, unpackedSize: unpackedSize),
            state: state, stagedAt: stagedAt, activatedAt: activatedAt, failureReason: failureReason)
    }

    /// A product record from its columns.
    static func product(id: String, type: String, title: String, periodDays: Int64?) throws(LedgerError) -> CatalogProduct {
        guard let type = ProductType(rawValue: type) else { throw .corrupt("product \(id) has the unknown type \(type)") }
        return CatalogProduct(id: id, type: type, title: title, periodDays: periodDays.map { Int($0) })
    }

    /// Product prefixes as stored: one per line.
    static func prefixes(_ stored: String) -> [String] {
        stored.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Hex text of a digest.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Bytes of hex text; nil when it is not hex.
    static func bytes(hex: String) -> [UInt8]? {
        let characters = Array(hex.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < characters.count {
            guard let high = nibble(characters[index]), let low = nibble(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case 0x30...0x39: character - 0x30
        case 0x61...0x66: character - 0x61 + 10
        default: nil
        }
    }
}
