import DepotCore

/// The purge tags of a bundle: one for its product, one for its content and one for its version, so an
/// operator (or the purge hook) can drop from every edge exactly what a change touched.
///
/// Tags read `product:<id>`, `content:<id>` and `version:<content id>@<version>`. Each identifier is
/// percent-encoded outside `A-Z a-z 0-9 - . _ ~`, so a tag never holds a space, a comma or `@` of its own
/// and two different identifiers never give the same tag, whatever separator the header uses.
package enum PurgeTags {
    /// The tag of every product list.
    package static let productLists = "product-lists"

    /// The tags of a bundle of `version` (a delta bundle carries its target version's tags).
    package static func tags(for version: ContentVersion) -> [String] {
        [
            "product:" + encoded(version.productId),
            "content:" + encoded(version.contentId),
            "version:" + encoded(version.contentId) + "@" + encoded(version.version),
        ]
    }

    /// `text` with every byte outside the unreserved set written as `%XX`.
    static func encoded(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
                || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if unreserved {
                out.append(byte)
            } else {
                out.append(contentsOf: [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
