import DepotCore

/// The `ContentInfo.plist` at the top of a bundle, as Apple's hosted In-App Purchase content had it.
///
/// Written by hand as an XML property list: keys sorted, values escaped, nothing taken from the host
/// (no dates, no locale), so the same pack always gives the same bytes. Keys: `ContentIdentifier`,
/// `ContentVersion`, `FileCount`, `IAPProductIdentifier`, `PublishedAt` (ISO 8601), `UnpackedSize`.
///
/// A delta bundle (see `DeltaPlan`) has the same keys, describing the version it brings the content
/// to (`FileCount` and `UnpackedSize` are those of the whole new version, so a client can check the
/// result of applying it), and two more: `BaseContentVersion`, the version it must be applied over, and
/// `RemovedPaths`, the paths (relative to `Contents/`, sorted by UTF-8 bytes) to delete from it.
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
    /// `BaseContentVersion`, in a delta bundle only: the `ContentVersion` it applies over.
    package var baseContentVersion: String?
    /// `RemovedPaths`, in a delta bundle only: the files of the base version to delete, relative to
    /// `Contents/`, sorted by UTF-8 bytes.
    package var removedPaths: [String]?

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
        // Sorted by key; each value rendered once, as the lines that follow its key.
        var entries: [(String, [String])] = [
            ("ContentIdentifier", ["<string>\(Self.escape(contentIdentifier))</string>"]),
            ("ContentVersion", ["<string>\(Self.escape(contentVersion))</string>"]),
            ("FileCount", ["<integer>\(fileCount)</integer>"]),
            ("IAPProductIdentifier", ["<string>\(Self.escape(productIdentifier))</string>"]),
            ("PublishedAt", ["<string>\(UTCTimestamp.format(publishedAt))</string>"]),
            ("UnpackedSize", ["<integer>\(unpackedSize)</integer>"]),
        ]
        if let baseContentVersion {
            entries.append(("BaseContentVersion", ["<string>\(Self.escape(baseContentVersion))</string>"]))
        }
        if let removedPaths {
            let items = removedPaths.map { "\t<string>\(Self.escape($0))</string>" }
            entries.append(("RemovedPaths", items.isEmpty ? ["<array/>"] : ["<array>"] + items + ["</array>"]))
        }
        entries.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>

            """
        for (key, lines) in entries {
            text += "\t<key>\(key)</key>\n"
            for line in lines { text += "\t\(line)\n" }
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
