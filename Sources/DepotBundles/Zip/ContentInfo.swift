/// The `ContentInfo.plist` at the top of a bundle, as Apple's hosted In-App Purchase content had it.
///
/// Written by hand as an XML property list: keys sorted, values escaped, nothing taken from the host
/// (no dates, no locale), so the same pack always gives the same bytes. Keys: `ContentIdentifier`,
/// `ContentVersion`, `FileCount`, `IAPProductIdentifier`, `PublishedAt` (ISO 8601), `UnpackedSize`.
package struct ContentInfo: Sendable, Equatable {
    /// The entry name in the bundle.
    package static let entryName = "ContentInfo.plist"

    /// `ContentIdentifier`: the manifest's `contentId`.
    package var contentIdentifier: String
    /// `ContentVersion`: the manifest's `version`.
    package var contentVersion: String
    /// `IAPProductIdentifier`: the manifest's `productId`.
    package var productIdentifier: String
    /// `PublishedAt`, Unix seconds (written as ISO 8601 UTC).
    package var publishedAt: Int64
    /// `UnpackedSize`: the total bytes of the files under `Contents/`.
    package var unpackedSize: Int64
    /// `FileCount`: how many files are under `Contents/`.
    package var fileCount: Int

    /// The property list describing `pack`.
    package init(pack: Pack) {
        contentIdentifier = pack.manifest.contentId
        contentVersion = pack.manifest.version
        productIdentifier = pack.manifest.productId
        publishedAt = pack.manifest.publishedAt
        unpackedSize = pack.unpackedSize
        fileCount = pack.files.count
    }

    /// The property list's bytes (UTF-8, tab-indented like Apple's own writer, trailing newline).
    package var propertyList: [UInt8] {
        // Sorted by key; each value rendered once.
        let entries: [(String, String)] = [
            ("ContentIdentifier", "<string>\(Self.escape(contentIdentifier))</string>"),
            ("ContentVersion", "<string>\(Self.escape(contentVersion))</string>"),
            ("FileCount", "<integer>\(fileCount)</integer>"),
            ("IAPProductIdentifier", "<string>\(Self.escape(productIdentifier))</string>"),
            ("PublishedAt", "<string>\(UTCTimestamp.format(publishedAt))</string>"),
            ("UnpackedSize", "<integer>\(unpackedSize)</integer>"),
        ]
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>

            """
        for (key, value) in entries {
            text += "\t<key>\(key)</key>\n\t\(value)\n"
        }
        text += "</dict>\n</plist>\n"
        return Array(text.utf8)
    }

    /// XML character data escaping. Control characters cannot occur: the manifest refuses them.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
